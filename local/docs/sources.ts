/**
 * Every per-network fact the generated docs show, read from the code's own tables in this one module, so that when
 * the tables move (issue 38: one declaration per network in lib/platforms/) only this file changes.
 */
import { PLATFORMS, type Platform } from "../../db/schema/accounts";
import { CreateAccountRequest } from "../../functions/accounts/schemas";
import { PROVIDERS, type ProviderSpec } from "../../lib/accounts/catalog";
import { READ_BUDGET } from "../../lib/providers/analytics/collect";
import { OAUTH_PLATFORMS } from "../../lib/providers/oauth/platforms";
import type { OAuthPlatform } from "../../lib/providers/oauth/spec";
import { PLATFORM_LIMITS, type PlatformLimits } from "../../lib/providers/platform-limits";
import { deadLetterUrlVar, JOB_KINDS, type JobKind, queueUrlVar } from "../../lib/jobs/kinds";
import { PLATFORM_NAMES } from "../../lib/publishing/video-rules";
import { NETWORK_ORIGINS, type SettingDefinition, SETTINGS } from "../../lib/settings/catalogue";

/** How an account of the network is connected: OAuth with the operator's app, or `POST /accounts` with a body. */
export type Connection =
  | { kind: "oauth"; oauth: OAuthPlatform; origins: { api: string; auth: readonly string[] } }
  | { kind: "body"; required: string[]; optional: string[] };

export interface NetworkFacts {
  platform: Platform;
  name: string;
  spec: ProviderSpec;
  limits: PlatformLimits;
  connection: Connection;
  /** Reads one analytics run may spend on an account, when Herald collects the network's analytics. */
  analyticsReadBudget: number | null;
}

const BODY_FIELDS = ["username", "instance_url", "url", "secret", "identifier", "app_password", "access_token"] as const;

/** The fields POST /accounts needs and accepts for a platform, as its own validation says (no second list to drift). */
function connectBody(platform: Platform): { required: string[]; optional: string[] } {
  const base = { workspace_id: "wsp_0123456789abcdefghijklmn", platform };
  const issuesOf = (body: Record<string, string>) => {
    const parsed = CreateAccountRequest.safeParse(body);
    return parsed.success ? [] : parsed.error.issues.map((i) => ({ field: String(i.path[0]), message: i.message }));
  };
  const required = issuesOf(base)
    .filter((i) => i.message.startsWith("Required for platform"))
    .map((i) => i.field);
  const all = Object.fromEntries(BODY_FIELDS.map((f) => [f, f === "url" || f === "instance_url" ? "https://example.com/" : "x"]));
  const refused = new Set(
    issuesOf({ ...base, ...all })
      .filter((i) => i.message.startsWith("Not used by platform"))
      .map((i) => i.field),
  );
  const optional = BODY_FIELDS.filter((f) => !refused.has(f) && !required.includes(f));
  return { required, optional };
}

const isOAuth = (platform: Platform): platform is keyof typeof OAUTH_PLATFORMS & Platform => Object.hasOwn(OAUTH_PLATFORMS, platform);

export function networks(): NetworkFacts[] {
  return PLATFORMS.map((platform) => {
    const connection: Connection = isOAuth(platform)
      ? { kind: "oauth", oauth: OAUTH_PLATFORMS[platform], origins: NETWORK_ORIGINS[platform] }
      : { kind: "body", ...connectBody(platform) };
    const budget = (READ_BUDGET as Partial<Record<Platform, number>>)[platform] ?? null;
    return {
      platform,
      name: PLATFORM_NAMES[platform],
      spec: PROVIDERS[platform],
      limits: PLATFORM_LIMITS[platform],
      connection,
      analyticsReadBudget: budget,
    };
  });
}

export const instanceSettings = (): readonly SettingDefinition[] => SETTINGS;

/** Each job kind's SQS queue and the variables naming its queue and dead-letter queue. */
export const jobQueues = () =>
  (Object.keys(JOB_KINDS) as JobKind[]).map((kind) => ({ kind, queue: JOB_KINDS[kind].queueName, urlVar: queueUrlVar(kind), dlqVar: deadLetterUrlVar(kind) }));

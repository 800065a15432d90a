import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { PLATFORMS, type Platform, socialAccounts } from "../../db/schema";
import { audit } from "../audit";
import { enforcePlanLimits } from "../billing/enforce";
import type { Database } from "../db/client";
import { type Env, publicBaseUrl } from "../env";
import { DomainError, invalidFields } from "../errors";
import { newId } from "../ids";
import { logEvent } from "../log";
import { allowPrivateUrls } from "./account-context";
import { authorizationUrl } from "../providers/oauth/authorize";
import { oauthConfig } from "./oauth-config";
import { isOAuthPlatform } from "../providers/oauth/platforms";
import { consumeState, createState } from "./oauth-state";
import { exchangeCode, GrantRefused, type TokenSet } from "../providers/oauth/tokens";
import { adapterFor, hasAdapter } from "../platforms/registry";
import { ProviderError, type ProviderProfile } from "../providers/types";
import { encryptJson } from "../secrets";
import { memberOf } from "../workspaces/members";
import { roleAtLeast } from "../workspaces/roles";

/**
 * Connecting an account through OAuth 2.0 (CONTRACT §9): start (a single-use state, the platform's
 * authorization URL) and the callback's completion (the code for tokens, the profile, the stored account).
 */

/** The platform's callback, the redirect URI registered with the platform's app. */
export const callbackUrl = (env: Env, platform: string, requestUrl?: string) => `${publicBaseUrl(env, requestUrl)}/accounts/connect/${platform}/callback`;

/**
 * Which platform a path names, for connecting: 404 for no platform at all, 422 for one connected with
 * POST /accounts (webhook, bluesky, mastodon, discord), 501 for one whose adapter is not built yet.
 */
export function oauthPlatformOf(name: string): Platform & Parameters<typeof oauthConfig>[2] {
  if (!(PLATFORMS as readonly string[]).includes(name)) throw new DomainError("not-found", `No such platform: ${name.slice(0, 40)}.`);
  if (!isOAuthPlatform(name))
    throw invalidFields([{ location: "path.platform", message: `${name} is not connected through OAuth; use POST /accounts`, value: name }]);
  if (!hasAdapter(name)) throw new DomainError("not-implemented", `Connecting ${name} is not built yet; nothing was changed.`);
  return name;
}

/** redirect_uri must be on PUBLIC_BASE_URL's origin: the callback never sends a browser (and an account id) elsewhere. */
function checkRedirect(env: Env, raw: string | undefined, requestUrl: string): string | null {
  if (raw === undefined) return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {}
  const origin = new URL(publicBaseUrl(env, requestUrl)).origin;
  if (!url || url.origin !== origin || url.username || url.password)
    throw invalidFields([{ location: "body.redirect_uri", message: `Must be an absolute URL on ${origin}` }]);
  return url.toString();
}

export async function startConnection(
  db: Database,
  env: Env,
  input: { platform: string; workspaceId: string; userId: string; redirectUri?: string; requestUrl: string },
) {
  const platform = oauthPlatformOf(input.platform);
  const redirectUri = checkRedirect(env, input.redirectUri, input.requestUrl);
  const cfg = await oauthConfig(env, db, platform);
  if (!cfg)
    throw new DomainError(
      "provider-not-configured",
      `${platform} is not configured on this instance: the operator sets ${platform}_client_id and ${platform}_client_secret.`,
    );
  const started = await createState(db, env.INSTANCE_SECRET_KEY ?? "", {
    platform,
    workspaceId: input.workspaceId,
    userId: input.userId,
    redirectUri,
    pkce: cfg.spec.pkce,
  });
  return {
    authorization_url: authorizationUrl(cfg, started.state, started.codeVerifier, callbackUrl(env, platform, input.requestUrl)),
    state: started.state,
    expires_at: started.expiresAt.toISOString(),
  };
}

/** Where the callback sends the browser: a URL, or nothing known to send it to (the state named nothing). */
export type CallbackOutcome = { location: string } | { problem: "unknown-state" };

const withParam = (target: string, key: string, value: string) => {
  const url = new URL(target);
  url.searchParams.set(key, value);
  return url.toString();
};

/** A platform's own `error` as a slug we pass on (RFC 6749 §4.1.2.1 codes are lower-case words). */
const platformError = (error: string) => (/^[a-z_]{1,40}$/.test(error) ? error : "platform_error");

export async function completeConnection(
  db: Database,
  env: Env,
  input: { platform: string; code?: string; state?: string; error?: string; requestUrl: string },
): Promise<CallbackOutcome> {
  const consumed = await consumeState(db, env.INSTANCE_SECRET_KEY ?? "", input.state ?? "");
  const home = `${publicBaseUrl(env, input.requestUrl)}/`;
  if (!consumed.ok) {
    if (consumed.reason === "unknown") return { problem: "unknown-state" };
    return { location: withParam(consumed.redirectUri ?? home, "error", "state_expired") };
  }
  const target = consumed.redirectUri ?? home;
  const fail = (slug: string) => ({ location: withParam(target, "error", slug) });
  if (consumed.platform !== input.platform) return fail("platform_mismatch");
  if (input.error) return fail(platformError(input.error));
  if (!input.code) return fail("invalid_request");
  if (!isOAuthPlatform(consumed.platform) || !hasAdapter(consumed.platform)) return fail("not_implemented");
  const platform = consumed.platform;

  // Bound to the user: one who is no longer an admin of the workspace cannot finish what they started.
  const member = await memberOf(db, consumed.workspaceId, consumed.userId);
  if (!member || !roleAtLeast(member.role, "admin")) return fail("forbidden");

  const cfg = await oauthConfig(env, db, platform);
  if (!cfg) return fail("provider_not_configured");
  const allowPrivate = allowPrivateUrls(env);
  let tokens: TokenSet;
  try {
    tokens = await exchangeCode(cfg, input.code, consumed.codeVerifier, callbackUrl(env, platform, input.requestUrl), allowPrivate);
  } catch (err) {
    logEvent("warn", "oauth code exchange failed", {
      platform,
      code: err instanceof GrantRefused ? err.code : err instanceof ProviderError ? err.info.code : "error",
    });
    return fail(err instanceof GrantRefused ? "token_exchange_refused" : "platform_unavailable");
  }

  const credentials: Record<string, string> = { access_token: tokens.access_token };
  if (tokens.refresh_token) credentials.refresh_token = tokens.refresh_token;
  if (tokens.scope) credentials.scope = tokens.scope;
  let profile: ProviderProfile;
  try {
    profile = await adapterFor(platform).readProfile({
      id: "",
      platform,
      username: null,
      instanceUrl: cfg.apiBase,
      url: null,
      externalAccountId: tokens.subject ?? null,
      credentials,
      allowPrivateUrls: allowPrivate,
    });
  } catch (err) {
    logEvent("warn", "oauth profile read failed", { platform, code: err instanceof ProviderError ? err.info.code : "error" });
    return fail("profile_unavailable");
  }

  const stored = await storeAccount(db, env, {
    platform,
    workspaceId: consumed.workspaceId,
    userId: consumed.userId,
    apiBase: cfg.apiBase,
    profile,
    // A Page token read with the user's replaces the user's tokens (Facebook, Instagram).
    tokens: profile.credentials ? { ...tokens, expiresInSeconds: profile.credentialsExpireInSeconds ?? null } : tokens,
    credentials: profile.credentials ?? credentials,
  });
  if ("error" in stored) return fail(stored.error);
  return { location: withParam(target, "account_id", stored.id) };
}

/**
 * The account, new or reconnected: connecting an account the workspace already has (the same platform account)
 * replaces its tokens and makes it active again, which is how a `reconnect_required` account is repaired.
 */
async function storeAccount(
  db: Database,
  env: Env,
  input: {
    platform: Platform;
    workspaceId: string;
    userId: string;
    apiBase: string;
    profile: ProviderProfile;
    tokens: TokenSet;
    credentials: Record<string, string>;
  },
): Promise<{ id: string } | { error: string }> {
  const ciphertext = await encryptJson(env.INSTANCE_SECRET_KEY ?? "", input.credentials);
  const expiresAt = input.tokens.expiresInSeconds === null ? null : sql`now() + make_interval(secs => ${input.tokens.expiresInSeconds})`;
  const externalId = input.profile.external_account_id ?? input.tokens.subject ?? null;
  try {
    return await db.transaction(async (tx) => {
      const tokenFields = {
        username: input.profile.username,
        avatarUrl: input.profile.avatar_url,
        credentialsCiphertext: ciphertext,
        status: "active" as const,
        tokenExpiresAt: expiresAt,
        tokenRefreshedAt: sql`now()`,
        capabilityCheckedAt: sql`now()`,
      };
      // A reconnection takes no new place in the plan: only a new account is counted against it.
      const [existing] = externalId
        ? await tx
            .select({ id: socialAccounts.id })
            .from(socialAccounts)
            .where(
              and(
                eq(socialAccounts.workspaceId, input.workspaceId),
                eq(socialAccounts.platform, input.platform),
                eq(socialAccounts.instanceUrl, input.apiBase),
                eq(socialAccounts.externalAccountId, externalId),
                isNull(socialAccounts.disconnectedAt),
              ),
            )
            .for("update")
        : [];
      if (!existing) await enforcePlanLimits(tx, env, { workspaceId: input.workspaceId }, [{ limit: "social_accounts", adding: 1 }]);
      const [row] = existing
        ? await tx
            .update(socialAccounts)
            .set({ ...tokenFields, updatedAt: sql`now()` })
            .where(eq(socialAccounts.id, existing.id))
            .returning({ id: socialAccounts.id })
        : await tx
            .insert(socialAccounts)
            .values({
              ...tokenFields,
              id: newId("acc"),
              workspaceId: input.workspaceId,
              platform: input.platform,
              instanceUrl: input.apiBase,
              externalAccountId: externalId,
              accountKind: input.profile.account_kind ?? "personal",
              textLimit: input.profile.text_limit ?? null,
              createdBy: input.userId,
            })
            // Two first connections of one account at once: the second updates the first's row.
            .onConflictDoUpdate({
              target: [socialAccounts.workspaceId, socialAccounts.platform, socialAccounts.instanceUrl, socialAccounts.externalAccountId],
              targetWhere: and(isNotNull(socialAccounts.externalAccountId), isNull(socialAccounts.disconnectedAt)),
              set: { ...tokenFields, updatedAt: sql`now()` },
            })
            .returning({ id: socialAccounts.id });
      await audit(tx, {
        actorUserId: input.userId,
        actorKind: "user",
        workspaceId: input.workspaceId,
        action: "account.connect",
        targetType: "social_account",
        targetId: row.id,
      });
      return { id: row.id };
    });
  } catch (err) {
    if (err instanceof DomainError && err.slug === "plan-limit-reached") return { error: "plan_limit_reached" };
    throw err;
  }
}

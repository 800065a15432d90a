import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { socialAccounts } from "../../db/schema";
import { presentAccount } from "../../lib/accounts/present";
import { audit } from "../../lib/audit";
import { enforcePlanLimits } from "../../lib/billing/enforce";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { checkOutboundUrl, normaliseInstanceUrl } from "../../lib/net/outbound-url";
import { allowPrivateUrls } from "../../lib/accounts/account-context";
import { DEFAULT_PDS } from "../../lib/platforms/bluesky/xrpc";
import { parseDiscordWebhookUrl } from "../../lib/platforms/discord/url";
import { adapterFor } from "../../lib/platforms/registry";
import type { AccountContext } from "../../lib/providers/types";
import { encryptJson } from "../../lib/secrets";
import { providerProblem } from "./provider-problem";
import { AccountResponse, CreateAccountRequest } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/accounts",
  operationId: "connectAccount",
  tags: ["accounts"],
  summary: "Connect a social account",
  description:
    "Needs the admin role. Verifies the credentials by reading the profile from the provider before storing anything; " +
    "credentials are encrypted at rest and never returned. Webhook and instance URLs that point to loopback or private " +
    "addresses are refused unless the instance sets ALLOW_PRIVATE_URLS.",
  request: { body: jsonBody(CreateAccountRequest) },
  responses: { 201: jsonResponse(AccountResponse, "The connected account"), ...problems(400, 401, 403, 404, 409, 413, 422, 429, 502, 503) },
});

/** The URL a platform contacts, checked against the outbound policy; 422 names the field. */
function outboundUrl(field: "url" | "instance_url", raw: string, allowPrivate: boolean): string {
  const verdict = checkOutboundUrl(field === "instance_url" ? normaliseInstanceUrl(raw) : raw, allowPrivate);
  if (!verdict.ok) {
    throw new ApiError("validation-error", {
      detail: `body.${field} ${verdict.reason}.`,
      errors: [{ location: `body.${field}`, message: `The URL ${verdict.reason}` }],
    });
  }
  return field === "instance_url" ? verdict.url!.origin : verdict.url!.toString();
}

/** A Discord channel webhook URL (lib/platforms/discord/url.ts); 422 names the field, never echoing the URL's token. */
function discordWebhookUrl(raw: string, allowPrivate: boolean): string {
  const parsed = parseDiscordWebhookUrl(raw, allowPrivate);
  if (!parsed.ok)
    throw new ApiError("validation-error", { detail: `body.url ${parsed.reason}.`, errors: [{ location: "body.url", message: `The URL ${parsed.reason}` }] });
  return parsed.url;
}

export const access = workspaceRole("admin", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  // Early, so a connection the plan cannot take never reaches the provider; checked again where it counts.
  await enforcePlanLimits(db(c), c.env, { workspaceId: body.workspace_id }, [{ limit: "social_accounts", adding: 1 }]);
  const allowPrivate = allowPrivateUrls(c.env);

  const credentials: Record<string, string> = {};
  let url: string | null = null;
  let instanceUrl: string | null = null;
  if (body.platform === "webhook") {
    url = outboundUrl("url", body.url!, allowPrivate);
    if (body.secret) credentials.secret = body.secret;
  } else if (body.platform === "bluesky") {
    instanceUrl = outboundUrl("instance_url", body.instance_url ?? DEFAULT_PDS, allowPrivate);
    Object.assign(credentials, { identifier: body.identifier!, app_password: body.app_password! });
  } else if (body.platform === "mastodon") {
    instanceUrl = outboundUrl("instance_url", body.instance_url!, allowPrivate);
    credentials.access_token = body.access_token!;
  } else if (body.platform === "discord") {
    // The URL carries the webhook's token, so it is the credential: sealed with the others, in no column, never shown.
    credentials.webhook_url = discordWebhookUrl(body.url!, allowPrivate);
  }

  // Verify before storing: a connection whose credentials the provider refuses is never saved.
  const context: AccountContext = {
    id: "",
    platform: body.platform,
    username: body.username ?? null,
    instanceUrl,
    url,
    externalAccountId: null,
    credentials,
    allowPrivateUrls: allowPrivate,
  };
  const credentialField =
    body.platform === "bluesky" ? "app_password" : body.platform === "mastodon" ? "access_token" : body.platform === "discord" ? "url" : undefined;
  const profile = await adapterFor(body.platform)
    .readProfile(context)
    .catch((err) => providerProblem(err, body.platform, credentialField));

  const ciphertext = await encryptJson(c.env.INSTANCE_SECRET_KEY ?? "", credentials);
  const row = await db(c).transaction(async (tx) => {
    await enforcePlanLimits(tx, c.env, { workspaceId: body.workspace_id }, [{ limit: "social_accounts", adding: 1 }]);
    const [created] = await tx
      .insert(socialAccounts)
      .values({
        id: newId("acc"),
        workspaceId: body.workspace_id,
        platform: body.platform,
        username: body.platform === "webhook" ? (body.username ?? profile.username) : profile.username,
        avatarUrl: profile.avatar_url,
        instanceUrl: profile.instance_url ?? instanceUrl,
        url,
        externalAccountId: profile.external_account_id,
        fediverseSoftware: profile.fediverse_software ?? null,
        accountKind: profile.account_kind ?? "personal",
        textLimit: profile.text_limit ?? null,
        credentialsCiphertext: ciphertext,
        capabilityCheckedAt: new Date(),
        createdBy: user.id,
      })
      .onConflictDoNothing()
      .returning();
    if (!created) {
      throw new ApiError("conflict", { detail: `This ${body.platform} account (${profile.username}) is already connected to the workspace.` });
    }
    await audit(tx, { ...auditActor(c), workspaceId: body.workspace_id, action: "account.connect", targetType: "social_account", targetId: created.id });
    return created;
  });
  return c.json(withSchema(c, AccountResponse, presentAccount(row)), 201);
};

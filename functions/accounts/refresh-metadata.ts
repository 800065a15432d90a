import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { socialAccounts } from "../../db/schema";
import { presentAccount } from "../../lib/accounts/present";
import { audit } from "../../lib/audit";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { accountContext } from "../../lib/accounts/account-context";
import { adapterFor } from "../../lib/platforms/registry";
import { IdParam } from "../../lib/schemas/common";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";
import { providerProblem } from "./provider-problem";
import { AccountResponse } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/accounts/{account_id}/refresh-metadata",
  operationId: "refreshAccountMetadata",
  tags: ["accounts"],
  summary: "Refresh a connected account's provider profile metadata",
  description:
    "Asks the provider for the account's current profile (username, avatar; for Mastodon-API servers the software and " +
    "canonical instance URL and text limit) and stores it. No body. Needs the admin role. Credentials the provider " +
    "refuses → 422; provider rate limit → 429; provider unreachable → 503; other provider errors → 502.",
  request: { params: z.object({ account_id: IdParam.openapi({ description: "Connected account ID" }) }) },
  responses: { 200: jsonResponse(AccountResponse, "The account with fresh metadata"), ...problems(401, 403, 404, 422, 429, 502, 503) },
});

export const access = workspaceRole("admin", resourceInPath("account", "account_id"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const row = scopedResource(c, "account");
  // An OAuth account's token is refreshed first; a refused refresh is a provider problem like any other.
  const context = await accountContext(c.env, row, db(c)).catch((err) => providerProblem(err, row.platform));
  const profile = await adapterFor(row.platform)
    .readProfile(context)
    .catch((err) => providerProblem(err, row.platform));
  const updated = await db(c).transaction(async (tx) => {
    const [next] = await tx
      .update(socialAccounts)
      .set({
        username: row.platform === "webhook" ? row.username : profile.username,
        avatarUrl: profile.avatar_url,
        externalAccountId: profile.external_account_id ?? row.externalAccountId,
        instanceUrl: profile.instance_url ?? row.instanceUrl,
        fediverseSoftware: profile.fediverse_software ?? null,
        accountKind: profile.account_kind ?? row.accountKind,
        textLimit: profile.text_limit ?? null,
        capabilityCheckedAt: new Date(),
        updatedAt: new Date(),
      })
      .where(eq(socialAccounts.id, row.id))
      .returning();
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "account.refresh_metadata", targetType: "social_account", targetId: row.id });
    return next;
  });
  return c.json(withSchema(c, AccountResponse, presentAccount(updated)), 200);
};

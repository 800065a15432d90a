import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import { repostPolicies } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { roleAtLeast } from "../../lib/http/workspace-guard";
import { REPOST_PLATFORMS } from "../../lib/repost/accounts";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { grantsOfWorkspace, grantsView } from "./grant-view";
import { toPolicy } from "./present";
import { SettingsResponse } from "./schemas";
import { MAX_ACCOUNTS, settingsAccounts } from "./settings-accounts";
import { inQuery, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

/** A workspace holds few policies and grants; the caps keep one response bounded whatever happens. */
const MAX_POLICIES = 200;
const MAX_GRANTS = 500;

export const route = createRoute({
  method: "get",
  path: "/repost-automation",
  operationId: "getRepostAutomation",
  tags: ["repost-automation"],
  summary: "Get workspace repost rules and available accounts",
  description: `At most ${MAX_POLICIES} policies, ${MAX_GRANTS} grants and ${MAX_ACCOUNTS} accounts. Activity: GET /repost-automation/activity.`,
  request: { query: z.object({ workspace_id: WorkspaceIdField }) },
  responses: { 200: jsonResponse(SettingsResponse, "Rules, grants and accounts"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  const database = db(c);
  const user = currentUser(c);
  const { role } = scope(c);
  const [accounts, grants, policies] = await Promise.all([
    settingsAccounts(database, workspace_id, user.id),
    grantsView(database, workspace_id, grantsOfWorkspace(workspace_id), MAX_GRANTS),
    database
      .select()
      .from(repostPolicies)
      .where(eq(repostPolicies.workspaceId, workspace_id))
      .orderBy(asc(repostPolicies.createdAt), asc(repostPolicies.id))
      .limit(MAX_POLICIES),
  ]);
  return c.json(
    withSchema(c, SettingsResponse, {
      workspace_id,
      can_manage: roleAtLeast(role, "admin"),
      supported_platforms: [...REPOST_PLATFORMS],
      accounts,
      grants,
      policies: policies.map(toPolicy),
    }),
    200,
  );
};

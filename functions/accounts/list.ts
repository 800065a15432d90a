import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, asc, eq, isNull } from "drizzle-orm";
import { socialAccounts } from "../../db/schema";
import { presentAccount } from "../../lib/accounts/present";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { AccountResponse } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

/** A workspace holds a handful of accounts; the list is bounded all the same. */
const MAX_ACCOUNTS = 500;

export const route = createRoute({
  method: "get",
  path: "/accounts",
  operationId: "listAccounts",
  tags: ["accounts"],
  summary: "The workspace's connected accounts, oldest first",
  description: "Needs the viewer role. A bare array (at most 500). Credentials are never returned.",
  request: { query: z.object({ workspace_id: WorkspaceIdField }) },
  responses: { 200: jsonResponse(z.array(AccountResponse), "The connected accounts"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  // social_accounts_workspace_idx (workspace_id, created_at) serves this.
  const rows = await db(c)
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspace_id), isNull(socialAccounts.disconnectedAt)))
    .orderBy(asc(socialAccounts.createdAt), asc(socialAccounts.id))
    .limit(MAX_ACCOUNTS);
  return c.json(withSchemaEach(c, AccountResponse, rows.map(presentAccount)), 200);
};

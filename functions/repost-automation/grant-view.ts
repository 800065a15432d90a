import { alias } from "drizzle-orm/pg-core";
import { desc, eq, inArray, or, type SQL } from "drizzle-orm";
import { repostGrants, socialAccounts, workspaces } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";

const sourceWs = alias(workspaces, "source_ws");
const targetWs = alias(workspaces, "target_ws");

/** Grants with the names the response shows, seen from `workspaceId` (outbound: it gave them). At most `limit`. */
export async function grantsView(q: Queryable, workspaceId: string, where: SQL, limit: number) {
  const rows = await q
    .select({
      id: repostGrants.id,
      platform: socialAccounts.platform,
      sourceWorkspaceId: repostGrants.sourceWorkspaceId,
      sourceWorkspaceName: sourceWs.name,
      targetWorkspaceId: repostGrants.targetWorkspaceId,
      targetWorkspaceName: targetWs.name,
      targetAccountId: repostGrants.targetAccountId,
      targetUsername: socialAccounts.username,
      createdAt: repostGrants.createdAt,
    })
    .from(repostGrants)
    .innerJoin(socialAccounts, eq(socialAccounts.id, repostGrants.targetAccountId))
    .innerJoin(sourceWs, eq(sourceWs.id, repostGrants.sourceWorkspaceId))
    .innerJoin(targetWs, eq(targetWs.id, repostGrants.targetWorkspaceId))
    .where(where)
    .orderBy(desc(repostGrants.createdAt), desc(repostGrants.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    platform: r.platform,
    direction: r.targetWorkspaceId === workspaceId ? "outbound" : "inbound",
    source_workspace_id: r.sourceWorkspaceId,
    source_workspace_name: r.sourceWorkspaceName,
    target_workspace_id: r.targetWorkspaceId,
    target_workspace_name: r.targetWorkspaceName,
    target_account_id: r.targetAccountId,
    target_username: r.targetUsername,
    created_at: r.createdAt.toISOString(),
  }));
}

export const grantsOfWorkspace = (workspaceId: string) => or(eq(repostGrants.sourceWorkspaceId, workspaceId), eq(repostGrants.targetWorkspaceId, workspaceId))!;

export const grantById = (id: string) => inArray(repostGrants.id, [id]);

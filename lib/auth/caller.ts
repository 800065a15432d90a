import { getTableColumns, sql, type Placeholder, type SQL } from "drizzle-orm";
import { users, workspaceMembers, type Role } from "../../db/schema";

/**
 * What authentication reads about the caller in its one statement: the whole user row (GET /auth/me needs
 * nothing more) and, when the request names a workspace, the caller's role in it (null: not a member), so
 * that a read needs no second round trip for its permission check.
 */
export function callerColumns(workspaceId: string | Placeholder | undefined) {
  const role: SQL<Role | null> = workspaceId
    ? sql<Role | null>`(select ${workspaceMembers.role} from ${workspaceMembers} where ${workspaceMembers.userId} = ${users.id} and ${workspaceMembers.workspaceId} = ${workspaceId})`
    : sql<Role | null>`null`;
  return { ...getTableColumns(users), role };
}

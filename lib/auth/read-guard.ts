import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { apiTokens, browserSessions, workspaceMembers, type Role } from "../../db/schema";
import { liveSession } from "./sessions";
import { liveToken } from "./tokens";

/** The credential a request carries, as stored: the SHA-256 of its bearer token or of its session cookie. */
export interface Credential {
  kind: "token" | "session";
  hash: string;
}

/**
 * A condition true only when the credential is live and its user holds one of `roles` in the workspace.
 * A read that starts before authentication has answered (lib/http/scoped-read.ts) carries it, so that
 * Postgres evaluates it once and first (an uncorrelated EXISTS is a one-time filter) and does none of the
 * read's work for a forged or revoked credential or a non-member.
 */
export function callerMayRead(credential: Credential, workspaceId: string, roles: readonly Role[]): SQL {
  const member = and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.role, [...roles]));
  return credential.kind === "token"
    ? sql`exists (select 1 from ${apiTokens} join ${workspaceMembers} on ${workspaceMembers.userId} = ${apiTokens.userId} where ${liveToken(credential.hash)} and ${member})`
    : sql`exists (select 1 from ${browserSessions} join ${workspaceMembers} on ${workspaceMembers.userId} = ${browserSessions.userId} where ${liveSession(credential.hash)} and ${member})`;
}

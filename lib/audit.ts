import { auditEvents } from "../db/schema";
import type { Queryable } from "./db/client";
import { newId } from "./ids";

/** How the actor was authenticated: a bearer token, a browser session, or no person at all (a worker). */
export type ActorKind = "user" | "token" | "session" | "system";

export interface AuditEntry {
  actorUserId: string | null;
  actorKind?: ActorKind;
  workspaceId?: string | null;
  /** Dotted verb, e.g. `token.create`, `workspace.member.add`. */
  action: string;
  targetType: string;
  targetId: string;
  /** `success` (the default) or `denied`: a refused attempt worth keeping, such as a failed sign-in. */
  outcome?: "success" | "denied";
  requestId?: string | null;
}

/**
 * Record a consequential change. Call it inside the transaction that makes the change, so the
 * trail and the change commit or roll back together. Only ids and verbs: never content or secrets.
 */
export async function audit(q: Queryable, entry: AuditEntry): Promise<void> {
  await auditStatement(q, entry);
}

/** The same entry as a statement not yet run, to go in a batch with the change (lib/db/batch.ts). */
export function auditStatement(q: Queryable, entry: AuditEntry) {
  return q.insert(auditEvents).values(auditRow(entry));
}

/** The row an entry is stored as. */
export function auditRow(entry: AuditEntry): typeof auditEvents.$inferInsert {
  return { id: newId("aud"), ...entry, workspaceId: entry.workspaceId ?? null, actorKind: entry.actorKind ?? (entry.actorUserId ? "user" : "system") };
}

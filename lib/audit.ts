import { auditEvents } from "../db/schema";
import type { Queryable } from "./db/client";
import { newId } from "./ids";

export interface AuditEntry {
  actorUserId: string | null;
  workspaceId?: string | null;
  /** Dotted verb, e.g. `token.create`, `workspace.member.add`. */
  action: string;
  targetType: string;
  targetId: string;
  /** How the actor was authenticated; `system` for work no person did (e.g. a payment provider's webhook). Default `user`. */
  actorKind?: "user" | "token" | "session" | "system";
}

/**
 * Record a consequential change. Call it inside the transaction that makes the change, so the
 * trail and the change commit or roll back together. Only ids and verbs: never content or secrets.
 */
export async function audit(q: Queryable, entry: AuditEntry): Promise<void> {
  await q.insert(auditEvents).values({ id: newId("aud"), workspaceId: entry.workspaceId ?? null, ...entry });
}

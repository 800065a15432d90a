import { and, asc, eq, inArray, or } from "drizzle-orm";
import { users, workspaceMembers, type Role } from "../../db/schema";
import { audit, type AuditEntry } from "../audit";
import type { Queryable } from "../db/client";
import { DomainError, notFound } from "../errors";
import { roleAtLeast } from "./roles";

/** Who acts, for the checks and the audit entry. */
export type MemberActor = Pick<AuditEntry, "actorKind" | "requestId"> & { actorUserId: string };

export interface MemberRow {
  workspaceId: string;
  userId: string;
  displayName: string;
  email: string;
  role: Role;
  createdAt: Date;
}

const memberColumns = {
  workspaceId: workspaceMembers.workspaceId,
  userId: workspaceMembers.userId,
  displayName: users.displayName,
  email: users.email,
  role: workspaceMembers.role,
  createdAt: workspaceMembers.createdAt,
};

/** A workspace's members, oldest first. */
export function listMembers(q: Queryable, workspaceId: string): Promise<MemberRow[]> {
  return q
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(eq(workspaceMembers.workspaceId, workspaceId))
    .orderBy(asc(workspaceMembers.createdAt), asc(workspaceMembers.userId));
}

export async function memberOf(q: Queryable, workspaceId: string, userId: string): Promise<MemberRow | undefined> {
  const [row] = await q
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  return row;
}

/**
 * Lock, for the rest of the transaction, every owner's row and the actor's and the target's: two changes that
 * could each leave the workspace without an owner then run one after the other, and the second sees the
 * first's result (Postgres re-reads a locked row that changed, so a demoted owner is no longer counted).
 */
async function lockOwnersAnd(tx: Queryable, workspaceId: string, userIds: string[]) {
  const rows = await tx
    .select({ userId: workspaceMembers.userId, role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), or(eq(workspaceMembers.role, "owner"), inArray(workspaceMembers.userId, userIds))))
    .orderBy(asc(workspaceMembers.userId))
    .for("update");
  const roleOf = (userId: string) => rows.find((r) => r.userId === userId)?.role;
  return { roleOf, owners: rows.filter((r) => r.role === "owner").length };
}

const lastOwner = () => new DomainError("conflict", "This is the workspace's last owner: make another member an owner first.");
const ownersOnly = () => new DomainError("forbidden", "Only an owner can grant or take the owner role.");

/**
 * Give a member another role (admin+; only an owner grants or takes `owner`); the last owner keeps theirs
 * (409). Checks run on rows locked in `tx`, so the actor's own role is as of now, not as of the access check.
 */
export async function changeMemberRole(tx: Queryable, actor: MemberActor, workspaceId: string, userId: string, role: Role): Promise<MemberRow> {
  const locked = await lockOwnersAnd(tx, workspaceId, [actor.actorUserId, userId]);
  const actorRole = locked.roleOf(actor.actorUserId);
  if (!actorRole) throw notFound("workspace");
  if (!roleAtLeast(actorRole, "admin")) throw new DomainError("forbidden", `Changing roles needs the admin role or higher; yours is ${actorRole}.`);
  const current = locked.roleOf(userId);
  if (!current) throw notFound("member");
  if ((role === "owner" || current === "owner") && actorRole !== "owner") throw ownersOnly();
  if (current === "owner" && role !== "owner" && locked.owners <= 1) throw lastOwner();
  if (current !== role) {
    await tx
      .update(workspaceMembers)
      .set({ role })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
    await audit(tx, { ...actor, workspaceId, action: "workspace.member.role", targetType: "user", targetId: userId });
  }
  const member = await memberOf(tx, workspaceId, userId);
  if (!member) throw notFound("member");
  return member;
}

/**
 * Remove a member (admin+; an owner only by an owner), or leave (any member, oneself); the last owner
 * cannot go (409).
 */
export async function removeMember(tx: Queryable, actor: MemberActor, workspaceId: string, userId: string): Promise<void> {
  const locked = await lockOwnersAnd(tx, workspaceId, [actor.actorUserId, userId]);
  const actorRole = locked.roleOf(actor.actorUserId);
  if (!actorRole) throw notFound("workspace");
  const current = locked.roleOf(userId);
  const leaving = userId === actor.actorUserId;
  if (!leaving && !roleAtLeast(actorRole, "admin"))
    throw new DomainError("forbidden", `Removing someone else needs the admin role or higher; yours is ${actorRole}. You may leave.`);
  if (!current) throw notFound("member");
  if (!leaving && current === "owner" && actorRole !== "owner") throw ownersOnly();
  if (current === "owner" && locked.owners <= 1) throw lastOwner();
  await tx.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  await audit(tx, { ...actor, workspaceId, action: "workspace.member.remove", targetType: "user", targetId: userId });
}

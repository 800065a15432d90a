import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { invitations, users, workspaceMembers, type Role } from "../../db/schema";
import { audit } from "../audit";
import { createUser } from "../auth/users";
import { issueToken } from "../auth/tokens";
import { sha256Hex } from "../crypto";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { DomainError, notFound } from "../errors";
import { newId, randomText } from "../ids";
import { addMember } from "./join";
import { memberOf, type MemberActor } from "./members";

/** CONTRACT §9: an invitation is good for one use within 7 days. */
export const INVITATION_DAYS = 7;
const TOKEN_PREFIX = "hli_";

export type InvitationStatus = "pending" | "accepted" | "revoked" | "expired";
export type InvitationRow = typeof invitations.$inferSelect;

/** Where an invitation stands now (the database's clock decided `expired` when it was read). */
export const statusOf = (row: InvitationRow & { expired: boolean }): InvitationStatus =>
  row.acceptedAt ? "accepted" : row.revokedAt ? "revoked" : row.expired ? "expired" : "pending";

/**
 * Invite `email` to a workspace at `role` (only an owner invites an owner). The token is returned once, here;
 * only its hash is stored, and the audit entry names the invitation's id alone.
 */
export async function createInvitation(tx: Queryable, actor: MemberActor & { role: Role }, workspaceId: string, input: { email: string; role: Role }) {
  if (input.role === "owner" && actor.role !== "owner") throw new DomainError("forbidden", "Only an owner can invite another owner.");
  const [already] = await tx
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), sql`lower(${users.email}) = lower(${input.email})`));
  if (already) throw new DomainError("conflict", "Someone with this e-mail address is already a member of the workspace.");
  const token = `${TOKEN_PREFIX}${randomText(40)}`;
  const [row] = await tx
    .insert(invitations)
    .values({
      id: newId("inv"),
      workspaceId,
      email: input.email,
      role: input.role,
      tokenHash: await sha256Hex(token),
      createdBy: actor.actorUserId,
      expiresAt: sql`now() + make_interval(days => ${INVITATION_DAYS})`,
    })
    .returning();
  await audit(tx, {
    actorUserId: actor.actorUserId,
    actorKind: actor.actorKind,
    requestId: actor.requestId,
    workspaceId,
    action: "invitation.create",
    targetType: "invitation",
    targetId: row.id,
  });
  return { row, token };
}

/** The workspace's invitations, newest first, each with whether it has expired by the database's clock. */
export function listInvitations(q: Queryable, workspaceId: string) {
  return q
    .select({ row: invitations, expired: sql<boolean>`${invitations.expiresAt} <= now()` })
    .from(invitations)
    .where(eq(invitations.workspaceId, workspaceId))
    .orderBy(desc(invitations.createdAt), desc(invitations.id))
    .limit(500);
}

/** Revoke a pending invitation of this workspace; anything else is 404. */
export async function revokeInvitation(tx: Queryable, actor: MemberActor, workspaceId: string, invitationId: string): Promise<void> {
  const revoked = await tx
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(invitations.id, invitationId), eq(invitations.workspaceId, workspaceId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .returning({ id: invitations.id });
  if (!revoked.length) throw notFound("invitation");
  await audit(tx, { ...actor, workspaceId, action: "invitation.revoke", targetType: "invitation", targetId: invitationId });
}

/**
 * Spend the invitation this token opens, if it is pending and unexpired: marked accepted in the caller's
 * transaction (a failure after this rolls it back, so it stays usable). Of concurrent accepts one gets it.
 */
export async function claimInvitation(tx: Queryable, token: string): Promise<InvitationRow | undefined> {
  const [row] = await tx
    .update(invitations)
    .set({ acceptedAt: sql`now()` })
    .where(
      and(
        eq(invitations.tokenHash, await sha256Hex(token)),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        sql`${invitations.expiresAt} > now()`,
      ),
    )
    .returning();
  return row;
}

async function finishAccept(tx: Queryable, env: Env, invitation: InvitationRow, actor: MemberActor) {
  await addMember(tx, env, actor, invitation.workspaceId, actor.actorUserId, invitation.role);
  await tx.update(invitations).set({ acceptedBy: actor.actorUserId }).where(eq(invitations.id, invitation.id));
  await audit(tx, { ...actor, workspaceId: invitation.workspaceId, action: "invitation.accept", targetType: "invitation", targetId: invitation.id });
  const member = await memberOf(tx, invitation.workspaceId, actor.actorUserId);
  if (!member) throw new Error("member just added is missing");
  return member;
}

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A signed-in person accepts: the invitation must be for their own e-mail address (else 403). */
export async function acceptAsUser(tx: Queryable, env: Env, invitation: InvitationRow, actor: MemberActor & { email: string }) {
  const { email, ...who } = actor;
  if (!sameEmail(email, invitation.email)) throw new DomainError("forbidden", "This invitation is for another e-mail address.");
  return finishAccept(tx, env, invitation, who);
}

/**
 * Someone not signed in accepts: when no user has the invitation's e-mail address, a new user is made with their
 * first API token (returned once); when one does, they must sign in first (403).
 */
export async function acceptAsNewPerson(tx: Queryable, env: Env, invitation: InvitationRow, input: { displayName?: string; requestId: string }) {
  const [existing] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${invitation.email})`);
  if (existing) throw new DomainError("forbidden", "A user with this e-mail address exists: sign in as them (API token or passkey) and accept again.");
  const user = await createUser(tx, { email: invitation.email, displayName: input.displayName ?? "", isAdmin: false });
  const actor: MemberActor = { actorUserId: user.id, actorKind: "user", requestId: input.requestId };
  await audit(tx, { ...actor, action: "user.create", targetType: "user", targetId: user.id });
  const { row, token } = await issueToken(tx, user.id, "first token");
  await audit(tx, { ...actor, action: "token.create", targetType: "token", targetId: row.id });
  const member = await finishAccept(tx, env, invitation, actor);
  return { member, user, token };
}

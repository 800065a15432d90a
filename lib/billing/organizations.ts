import { and, eq, isNull } from "drizzle-orm";
import { organizationMembers, organizations, subscriptions, workspaceMembers, workspaces } from "../../db/schema";
import type { Queryable } from "../db/client";
import { DomainError, notFound } from "../errors";
import { newId } from "../ids";

/**
 * Make the user's personal organization (and its owner membership) inside the caller's transaction; an
 * existing one is kept. Returns its id.
 */
export async function ensurePersonalOrganization(q: Queryable, userId: string): Promise<string> {
  const id = newId("org");
  const [made] = await q.insert(organizations).values({ id, kind: "personal", ownerUserId: userId }).onConflictDoNothing().returning({ id: organizations.id });
  const orgId = made?.id ?? (await personalOrganizationId(q, userId));
  await q.insert(organizationMembers).values({ organizationId: orgId, userId, role: "owner" }).onConflictDoNothing();
  return orgId;
}

export async function personalOrganizationId(q: Queryable, userId: string): Promise<string> {
  const [row] = await q
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.ownerUserId, userId), eq(organizations.kind, "personal")))
    .limit(1);
  if (!row) throw new Error(`user ${userId} has no personal organization`);
  return row.id;
}

/** The caller's role in an organization, or 404 when they are not in it (existence is never revealed). */
export async function requireOrganizationMember(q: Queryable, userId: string, organizationId: string): Promise<"owner" | "member"> {
  const role = await organizationRole(q, userId, organizationId);
  if (!role) throw notFound("organization");
  return role;
}

/** The caller must own the organization to manage its billing: 404 when not in it (never revealed), 403 when a member only. */
export async function requireOrganizationOwner(q: Queryable, userId: string, organizationId: string): Promise<void> {
  if ((await requireOrganizationMember(q, userId, organizationId)) !== "owner") {
    throw new DomainError("forbidden", "Only an owner of the organization manages its billing.");
  }
}

export async function organizationRole(q: Queryable, userId: string, organizationId: string): Promise<"owner" | "member" | null> {
  const [row] = await q
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)))
    .limit(1);
  return row?.role ?? null;
}

export async function organizationOfWorkspace(q: Queryable, workspaceId: string): Promise<string> {
  const [row] = await q.select({ organizationId: workspaces.organizationId }).from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  if (!row) throw notFound("workspace");
  return row.organizationId;
}

/** Hold the organization's row until the transaction ends, so limit checks and inserts of one organization run one at a time. */
export async function lockOrganization(tx: Queryable, organizationId: string): Promise<void> {
  await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)).for("update");
}

/** Whether the user is already a member of some workspace of the organization (and so already counted in `members`). */
export async function isCountedMember(q: Queryable, organizationId: string, userId: string): Promise<boolean> {
  const [row] = await q
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaces.organizationId, organizationId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  return row !== undefined;
}

/** The organization's current subscription (not ended), if any. */
export async function currentSubscription(q: Queryable, organizationId: string): Promise<typeof subscriptions.$inferSelect | null> {
  const [row] = await q
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.organizationId, organizationId), isNull(subscriptions.endedAt)))
    .limit(1);
  return row ?? null;
}

import { users } from "../../db/schema";
import { ensurePersonalOrganization } from "../billing/organizations";
import type { Queryable } from "../db/client";
import { DomainError } from "../errors";
import { newId } from "../ids";

/**
 * Insert a user and its personal organization (CONTRACT.md §8) in one transaction (the caller's, when it
 * passes one); an e-mail already taken (case-insensitively) is 409 conflict.
 */
export async function createUser(q: Queryable, input: { email: string; displayName: string; isAdmin: boolean }) {
  return q.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({ id: newId("usr"), email: input.email, displayName: input.displayName, isAdmin: input.isAdmin })
      .onConflictDoNothing()
      .returning();
    if (!user) throw new DomainError("conflict", "A user with this e-mail address already exists.");
    await ensurePersonalOrganization(tx, user.id);
    return user;
  });
}

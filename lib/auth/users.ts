import { users } from "../../db/schema";
import type { Queryable } from "../db/client";
import { ApiError } from "../http/errors";
import { newId } from "../ids";

/** Insert a user; an e-mail already taken (case-insensitively) is 409 conflict. */
export async function createUser(q: Queryable, input: { email: string; displayName: string; isAdmin: boolean }) {
  const [user] = await q
    .insert(users)
    .values({ id: newId("usr"), email: input.email, displayName: input.displayName, isAdmin: input.isAdmin })
    .onConflictDoNothing()
    .returning();
  if (!user) throw new ApiError("conflict", { detail: "A user with this e-mail address already exists." });
  return user;
}

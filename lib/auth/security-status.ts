import { asc, eq } from "drizzle-orm";
import { passkeys, users } from "../../db/schema";
import type { Queryable } from "../db/client";
import { toUserProfile } from "./profile";

/** A person keeps at most this many passkeys: enough for every device, and a bound on each sign-in's work. */
export const MAX_PASSKEYS_PER_USER = 20;

export const userPasskeys = (q: Queryable, userId: string) =>
  q.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id)).limit(MAX_PASSKEYS_PER_USER);

/** SPEC 2.1 SecurityStatus: the user, their passkeys, and the sign-in methods they have. */
export async function securityStatus(q: Queryable, userId: string) {
  const [[user], keys] = await Promise.all([q.select().from(users).where(eq(users.id, userId)), userPasskeys(q, userId)]);
  return {
    methods: keys.length ? ["passkey"] : [],
    passkeys: keys.map((k) => ({ id: k.id, name: k.name, created_at: k.createdAt.toISOString(), last_used_at: k.lastUsedAt?.toISOString() ?? null })),
    // Herald has no TOTP yet; the field says so rather than being left out.
    totp_enabled: false,
    user: toUserProfile(user),
  };
}

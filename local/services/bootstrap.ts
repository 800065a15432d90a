import { ensurePersonalOrganization } from "../../lib/billing/organizations";
import { eq, sql } from "drizzle-orm";
import { apiTokens, users } from "../../db/schema";
import "../../lib/db/node";
import { audit } from "../../lib/audit";
import { hashToken } from "../../lib/auth/tokens";
import { openDb } from "../../lib/db/client";
import type { Env } from "../../lib/env";
import { newId } from "../../lib/ids";

/**
 * CONTRACT.md §3: ensure an instance administrator with this e-mail exists and that `token`
 * authenticates as them (stored hashed). Returns whether anything was created, and whether the token
 * was revoked: a revocation is final (it is how someone shuts out a leaked token), so a restart never
 * brings it back; the operator sets a new BOOTSTRAP_ADMIN_TOKEN (or deletes the generated token file).
 */
export async function ensureBootstrapAdmin(
  env: Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY">,
  email: string,
  token: string,
): Promise<{ createdUser: boolean; createdToken: boolean; revoked: boolean }> {
  if (token.length < 32) throw new Error("BOOTSTRAP_ADMIN_TOKEN must be at least 32 characters");
  const { db, close } = openDb(env);
  try {
    return await db.transaction(async (tx) => {
      let [user] = await tx.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
      let createdUser = false;
      if (!user) {
        [user] = await tx
          .insert(users)
          .values({ id: newId("usr"), email, displayName: "Administrator", isAdmin: true })
          .returning();
        await ensurePersonalOrganization(tx, user.id);
        await audit(tx, { actorUserId: null, action: "user.bootstrap", targetType: "user", targetId: user.id });
        createdUser = true;
      } else if (!user.isAdmin) {
        await tx.update(users).set({ isAdmin: true }).where(eq(users.id, user.id));
      }
      const tokenHash = await hashToken(token);
      const [existing] = await tx.select().from(apiTokens).where(eq(apiTokens.tokenHash, tokenHash));
      if (existing && existing.userId !== user.id) throw new Error("BOOTSTRAP_ADMIN_TOKEN already belongs to another user");
      let createdToken = false;
      const revoked = Boolean(existing?.revokedAt);
      if (!existing) {
        const id = newId("tok");
        await tx.insert(apiTokens).values({ id, userId: user.id, name: "bootstrap", tokenHash });
        await audit(tx, { actorUserId: null, action: "token.bootstrap", targetType: "token", targetId: id });
        createdToken = true;
      }
      return { createdUser, createdToken, revoked };
    });
  } finally {
    await close();
  }
}

import type { Pool } from "@neondatabase/serverless";
import { and, eq, isNull, sql, type Placeholder } from "drizzle-orm";
import { browserSessions, users, type Role } from "../../db/schema";
import { sha256Hex } from "../crypto";
import type { Queryable } from "../db/client";
import { compileStatement, runCompiled, statementBuilder } from "../db/compiled";
import { newId, randomText } from "../ids";
import { callerColumns } from "./caller";

/** CONTRACT §8: a browser session ends after 12 hours without use, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_SECONDS = 12 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;
export const SESSION_COOKIE = "herald_session";

const SESSION_PREFIX = "hls_";
const SESSION_SHAPE = /^hls_[a-z0-9]{40}$/;

export const looksLikeSessionToken = (value: string) => SESSION_SHAPE.test(value);

/** A session within both of its limits and not ended (one definition for the lookup and lib/auth/read-guard.ts). */
export const liveSession = (hash: string | Placeholder) =>
  and(
    eq(browserSessions.tokenHash, hash),
    isNull(browserSessions.revokedAt),
    sql`${browserSessions.expiresAt} > now()`,
    sql`${browserSessions.lastSeenAt} > now() - make_interval(secs => ${SESSION_IDLE_SECONDS})`,
  )!;

/** Open a session for a user who just proved a passkey; only the hash of the cookie value is stored. */
export async function openSession(q: Queryable, userId: string, passkeyId: string): Promise<{ id: string; token: string }> {
  const token = `${SESSION_PREFIX}${randomText(40)}`;
  const id = newId("ses");
  await q.insert(browserSessions).values({
    id,
    userId,
    passkeyId,
    tokenHash: await sha256Hex(token),
    expiresAt: sql`now() + make_interval(secs => ${SESSION_ABSOLUTE_SECONDS})`,
  });
  return { id, token };
}

/**
 * The user behind a session cookie's hash (and role in `workspaceId`, see lib/auth/caller.ts), when the session is
 * live (not revoked, within both limits). One statement both checks and marks it used, so idle time is
 * measured from the last request.
 */
export async function findUserBySession(pool: Pool, tokenHash: string, workspaceId?: string) {
  const statement = workspaceId ? (bySession.withRole ??= callerBySession(true)) : (bySession.withoutRole ??= callerBySession(false));
  const [row] = await runCompiled(pool, statement, { hash: tokenHash, workspaceId });
  return row;
}

function callerBySession(withRole: boolean) {
  return compileStatement<typeof users.$inferSelect & { role: Role | null; sessionId: string }>(
    statementBuilder
      .update(browserSessions)
      .set({ lastSeenAt: sql`now()` })
      .from(users)
      .where(and(eq(users.id, browserSessions.userId), liveSession(sql.placeholder("hash"))))
      .returning({ ...callerColumns(withRole ? sql.placeholder("workspaceId") : undefined), sessionId: browserSessions.id }),
    { ...callerColumns(undefined), sessionId: browserSessions.id },
  );
}
/** Built on first use, once per isolate (lib/db/compiled.ts): authentication runs it on every request. */
const bySession: { withRole?: ReturnType<typeof callerBySession>; withoutRole?: ReturnType<typeof callerBySession> } = {};

/** End a session (sign-out); answers whether it was live. */
export async function revokeSession(q: Queryable, sessionId: string): Promise<boolean> {
  const rows = await q
    .update(browserSessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(browserSessions.id, sessionId), isNull(browserSessions.revokedAt)))
    .returning({ id: browserSessions.id });
  return rows.length > 0;
}

/** The Set-Cookie value for a new session (or, with `null`, one that clears it). */
export function sessionCookie(token: string | null, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${token ?? ""}`, "HttpOnly", "SameSite=Strict", "Path=/", `Max-Age=${token ? SESSION_ABSOLUTE_SECONDS : 0}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/** The session cookie's value in a Cookie header, if there is one. */
export function sessionTokenFrom(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader || cookieHeader.length > 8192) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eqAt = part.indexOf("=");
    if (eqAt > 0 && part.slice(0, eqAt).trim() === SESSION_COOKIE) return part.slice(eqAt + 1).trim();
  }
  return undefined;
}

import type { Context, MiddlewareHandler } from "hono";
import type { Role, users } from "../../db/schema";
import { findUserBySession, looksLikeSessionToken, sessionTokenFrom } from "../auth/sessions";
import type { Credential } from "../auth/read-guard";
import { findUserByToken, hashToken, looksLikeToken } from "../auth/tokens";
import { sha256Hex } from "../crypto";
import { publicBaseUrl } from "../env";
import { dbPool, type AppEnv, type AuthUser } from "./context";
import { ApiError } from "./errors";
import type { AccessIndex } from "./operation";
import { handleError } from "./problem-response";
import { addressBlocked, enforceAddressLimit, enforceRateLimit } from "./rate-limit";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Authentication for every non-public path: a bearer token, or else a browser session cookie (CONTRACT §8).
 * A cookie travels with any request the browser makes, so an unsafe method carried by one must come from
 * our own page: its Origin must be PUBLIC_BASE_URL's. Neither → 401 with WWW-Authenticate.
 */
export const authenticate =
  (index: AccessIndex): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const access = index.find(c.req.method, c.req.path);
    if (access?.kind === "public") return next();
    // A route that verifies a signed URL itself (the media file) takes no credential when the URL carries one.
    if (access?.kind === "workspace-role" && access.signedUrl && c.req.query("signature") !== undefined) return next();
    // A route whose workspace is in its query gets the caller's role there in the same statement (lib/auth/caller.ts).
    const source = access?.kind === "workspace-role" ? access.workspace : undefined;
    const named = source?.in === "query" && !("resource" in source) ? c.req.queries(source.field) : undefined;
    const workspaceId = named?.length === 1 && named[0].length > 0 && named[0].length <= 100 ? named[0] : undefined;
    // An address that spent its budget on failures is refused before its credential costs a lookup.
    const refused = addressBlocked(c);
    if (refused) throw refused;
    const credential = await credentialOf(c).catch((error: unknown) => countedFailure(c, error));
    c.set("credential", credential);
    const identified = identify(c, credential, workspaceId).catch((error: unknown) => countedFailure(c, error));
    if (!workspaceId || access?.kind !== "workspace-role" || !access.readBesideAuth) {
      await identified;
      return next();
    }
    // A read beside authentication starts its first statement beside this one (lib/http/scoped-read.ts) and awaits it.
    const pending = identified.then(() => enforceRateLimit(c));
    pending.catch(() => {}); // awaited below and by the read; never an unhandled rejection meanwhile
    c.set("pendingCaller", pending);
    await next();
    try {
      await pending;
    } catch (error) {
      // Whatever the route answered, an unauthenticated or rate-limited request gets only that answer
      // (dropping the route's response first, so none of its headers is carried over).
      c.res = undefined;
      c.res = handleError(error, c);
    }
  };

/**
 * A request whose credential is missing or failed carries no person: it counts against its client address, and
 * past that budget its answer is 429 instead (lib/http/rate-limit.ts). Rethrows the failure otherwise.
 */
async function countedFailure(c: Context<AppEnv>, error: unknown): Promise<never> {
  if (error instanceof ApiError) await enforceAddressLimit(c);
  throw error;
}

/**
 * The caller of a public operation that also serves signed-in callers (accepting an invitation): undefined when
 * the request carries no credential; otherwise authenticated as any other request (401 for a bad credential,
 * 403 for a cookie-carried change from another origin), and remembered on the context.
 */
export async function optionalCaller(c: Context<AppEnv>): Promise<AuthUser | undefined> {
  if (!c.req.header("authorization") && sessionTokenFrom(c.req.header("cookie")) === undefined) return undefined;
  const credential = await credentialOf(c).catch((error: unknown) => countedFailure(c, error));
  c.set("credential", credential);
  await identify(c, credential, undefined).catch((error: unknown) => countedFailure(c, error));
  return c.get("user");
}

/** The request's credential, hashed as stored, or the 401 / 403 that says what is wrong with it. */
async function credentialOf(c: Context<AppEnv>): Promise<Credential> {
  const header = c.req.header("authorization");
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !looksLikeToken(match[1])) {
      throw new ApiError("unauthorized", { detail: "The Authorization header is not of the form Bearer <token>." });
    }
    return { kind: "token", hash: await hashToken(match[1]) };
  }
  const session = sessionTokenFrom(c.req.header("cookie"));
  if (session === undefined)
    throw new ApiError("unauthorized", { detail: "Send Authorization: Bearer <token>, or sign in with a passkey at /account/security." });
  if (!SAFE_METHODS.has(c.req.method) && c.req.header("origin") !== new URL(publicBaseUrl(c.env, c.req.url)).origin) {
    throw new ApiError("forbidden", {
      detail: "A request carried by a session cookie that changes something must come from Herald's own pages (its Origin did not match).",
    });
  }
  if (!looksLikeSessionToken(session)) throw sessionEnded();
  return { kind: "session", hash: await sha256Hex(session) };
}

const sessionEnded = () =>
  new ApiError("unauthorized", { detail: "The session has ended (signed out, idle for 12 hours, or older than 7 days); sign in again." });

/** Who the credential belongs to (one statement, with the role in `workspaceId`), remembered on the context. */
async function identify(c: Context<AppEnv>, credential: Credential, workspaceId: string | undefined): Promise<void> {
  if (credential.kind === "token") {
    const found = await findUserByToken(dbPool(c), credential.hash, workspaceId);
    if (!found) throw new ApiError("unauthorized", { detail: "The token is unknown or has been revoked." });
    remember(c, found, workspaceId, { tokenId: found.tokenId, sessionId: null });
    return;
  }
  const found = await findUserBySession(dbPool(c), credential.hash, workspaceId);
  if (!found) throw sessionEnded();
  remember(c, found, workspaceId, { tokenId: null, sessionId: found.sessionId });
}

function remember(
  c: Context<AppEnv>,
  found: typeof users.$inferSelect & { role: Role | null },
  workspaceId: string | undefined,
  via: Pick<AuthUser, "tokenId" | "sessionId">,
): void {
  const { role, ...row } = found;
  c.set("user", { id: row.id, email: row.email, isAdmin: row.isAdmin, ...via });
  c.set("userRow", row);
  if (workspaceId) c.set("membership", { workspaceId, role });
}

import type { Context, MiddlewareHandler } from "hono";
import type { Role, users } from "../../db/schema";
import { findUserBySession, looksLikeSessionToken, sessionTokenFrom } from "../auth/sessions";
import type { Credential } from "../auth/read-guard";
import { findUserByToken, hashToken, looksLikeToken } from "../auth/tokens";
import { sha256Hex } from "../crypto";
import { publicBaseUrl } from "../env";
import { dbPool, type AppEnv, type AuthUser } from "./context";
import { ApiError } from "./errors";
import { GUARDED_READ_PATHS } from "./guarded-read";
import { handleError } from "./problem-response";
import { enforceRateLimit } from "./rate-limit";

/**
 * Paths anyone may read: health, the API description and its schemas, problem type pages, the security
 * page, the passkey sign-in (it is how a person gets a session) and the Stripe webhook (signed instead).
 */
const PUBLIC = [
  /^\/healthz$/,
  /^\/openapi\.json$/,
  /^\/docs\/?$/,
  /^\/api\/v1\/schemas\//,
  /^\/problems\//,
  /^\/favicon\.ico$/,
  /^\/account\/security(\.js|\.css)?$/,
  /^\/auth\/sessions\/passkey\/(start|finish)$/,
  /^\/billing\/webhooks\/stripe$/,
];

export const isPublicPath = (path: string) => PUBLIC.some((re) => re.test(path));

/**
 * A media file requested with a signed URL (lib/media/signed-url.ts) carries no token: the route itself
 * must verify the signature and answer 401 when it does not hold. Without `signature`, a token is needed.
 */
export const isSignedMediaRequest = (method: string, path: string, url: string) =>
  (method === "GET" || method === "HEAD") && /^\/media\/[^/]+\/file$/.test(path) && new URL(url).searchParams.has("signature");

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Authentication for every non-public path: a bearer token, or else a browser session cookie (CONTRACT §8).
 * A cookie travels with any request the browser makes, so an unsafe method carried by one must come from
 * our own page: its Origin must be PUBLIC_BASE_URL's. Neither → 401 with WWW-Authenticate.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (isPublicPath(c.req.path) || isSignedMediaRequest(c.req.method, c.req.path, c.req.url)) return next();
  // A read that names its workspace gets the caller's role there in the same statement (lib/auth/caller.ts).
  const named = c.req.method === "GET" ? c.req.queries("workspace_id") : undefined;
  const workspaceId = named?.length === 1 && named[0].length > 0 && named[0].length <= 100 ? named[0] : undefined;
  const credential = await credentialOf(c);
  c.set("credential", credential);
  const identified = identify(c, credential, workspaceId);
  if (!workspaceId || !GUARDED_READ_PATHS.has(c.req.path)) {
    await identified;
    return next();
  }
  // A guarded read starts its first statement beside this one (lib/http/guarded-read.ts) and awaits it.
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

export function requireInstanceAdmin(c: Parameters<MiddlewareHandler<AppEnv>>[0]): void {
  if (!c.get("user")?.isAdmin) throw new ApiError("forbidden", { detail: "Only instance administrators may do this." });
}

/** SPEC 5: the audit listing wants an instance administrator in a browser session; a bearer token, even an administrator's, is refused. */
export function requireAdminSession(c: Parameters<MiddlewareHandler<AppEnv>>[0]): void {
  const user = c.get("user");
  if (!user?.sessionId)
    throw new ApiError("forbidden", {
      detail: "Only an instance administrator signed in with a passkey (a browser session) may read this; API tokens may not.",
    });
  requireInstanceAdmin(c);
}

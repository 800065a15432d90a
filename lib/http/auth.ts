import type { MiddlewareHandler } from "hono";
import { findUserByToken, looksLikeToken } from "../auth/tokens";
import { db, type AppEnv } from "./context";
import { ApiError } from "./errors";

/** Paths anyone may read: health, the API description and its schemas, problem type pages. */
const PUBLIC = [/^\/healthz$/, /^\/billing\/webhooks\/stripe$/, /^\/openapi\.json$/, /^\/docs\/?$/, /^\/api\/v1\/schemas\//, /^\/problems\//, /^\/favicon\.ico$/];

export const isPublicPath = (path: string) => PUBLIC.some((re) => re.test(path));

/**
 * A media file requested with a signed URL (lib/media/signed-url.ts) carries no token: the route itself
 * must verify the signature and answer 401 when it does not hold. Without `signature`, a token is needed.
 */
export const isSignedMediaRequest = (method: string, path: string, url: string) =>
  (method === "GET" || method === "HEAD") && /^\/media\/[^/]+\/file$/.test(path) && new URL(url).searchParams.has("signature");

/** Bearer-token authentication for every non-public path: 401 unauthorized with WWW-Authenticate otherwise. */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (isPublicPath(c.req.path) || isSignedMediaRequest(c.req.method, c.req.path, c.req.url)) return next();
  const header = c.req.header("authorization");
  if (!header) throw new ApiError("unauthorized", { detail: "Send Authorization: Bearer <token>." });
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match || !looksLikeToken(match[1])) {
    throw new ApiError("unauthorized", { detail: "The Authorization header is not of the form Bearer <token>." });
  }
  const found = await findUserByToken(db(c), match[1]);
  if (!found) throw new ApiError("unauthorized", { detail: "The token is unknown or has been revoked." });
  c.set("user", { id: found.id, email: found.email, isAdmin: found.isAdmin, tokenId: found.tokenId });
  return next();
};

export function requireInstanceAdmin(c: Parameters<MiddlewareHandler<AppEnv>>[0]): void {
  if (!c.get("user")?.isAdmin) throw new ApiError("forbidden", { detail: "Only instance administrators may do this." });
}

import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./errors";
import type { AppEnv } from "./context";

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
const DEFAULT_MAX_BODY = 1024 * 1024;

const mediaType = (header: string | undefined) => (header ?? "").split(";")[0].trim().toLowerCase();

/** JSON bodies are capped (413); multipart uploads set their own limit in their route. */
export const jsonBodyLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (mediaType(c.req.header("content-type")) === "multipart/form-data") return next();
  const maxSize = Number(c.env?.MAX_BODY_BYTES) || DEFAULT_MAX_BODY;
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("payload-too-large", { detail: `Request bodies are limited to ${maxSize} bytes.` });
    },
  })(c, next);
};

/**
 * A body, when present, must be JSON (or multipart where a route accepts uploads) and must parse:
 * otherwise 400 bad-request before any route logic runs.
 */
export const requireJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS") return next();
  const type = mediaType(c.req.header("content-type"));
  if (type === "multipart/form-data") return next();
  const text = await c.req.text();
  if (JSON_TYPE.test(type)) {
    if (text.trim() === "") return next();
    try {
      JSON.parse(text);
    } catch {
      throw new ApiError("bad-request", { detail: "The request body is not valid JSON." });
    }
    return next();
  }
  if (text.length > 0) {
    throw new ApiError("bad-request", {
      detail: `Send the body as application/json${type ? ` (got ${type})` : " (no Content-Type given)"}.`,
    });
  }
  return next();
};

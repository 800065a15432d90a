import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/**
 * A multipart/form-data body must parse as a form before anything reads its fields: the runtime's FormData
 * parser throws a TypeError on a missing or wrong boundary, a cut-off part or a body that is no form, which
 * would otherwise reach the error handler as a 500. Hono keeps the parsed form, so the access check and the
 * route's validator read this same one. Put it after the route's body limit, which has already bounded the
 * bytes read here. Other content types pass on to the route, which answers them 415.
 */
export const requireFormBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\b/i.test(type)) return next();
  try {
    await c.req.formData();
  } catch {
    throw new ApiError("bad-request", {
      detail: /boundary=/i.test(type)
        ? "The request body is not a multipart/form-data form matching its boundary (cut off, or not a form)."
        : "The multipart/form-data Content-Type names no boundary; send the form with its boundary parameter.",
    });
  }
  return next();
};

import type { Context, MiddlewareHandler } from "hono";
import { discardBody } from "./body-meter";
import { jsonMaxBytes } from "./body-limits";
import { readBodyCapped } from "./body-read";
import { ApiError } from "./errors";
import type { AppEnv } from "./context";

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
/** No document of ours nests deeper; refusing deeper bodies keeps recursive validation off the stack limit. */
const MAX_JSON_DEPTH = 64;

/** Deepest bracket nesting of a JSON text, ignoring brackets inside strings. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 || ch === 123) max = Math.max(max, ++depth);
    else if (ch === 93 || ch === 125) depth--;
  }
  return max;
}
const mediaType = (header: string | undefined) => (header ?? "").split(";")[0].trim().toLowerCase();

/**
 * Let a body through when it is at most `maxSize` bytes, else throw `tooLarge()`. A declared Content-Length is
 * checked before reading; a chunked body is read up to the limit (its route parses it whole anyway), and when it
 * passes it the stream is let go, so that drainUnreadBody can drop the rest before the answer (hono's bodyLimit
 * keeps it locked).
 */
export async function capRequestBody(c: Context<AppEnv>, maxSize: number, tooLarge: () => ApiError): Promise<void> {
  const raw = c.req.raw;
  if (!raw.body) return;
  const declared = c.req.header("content-length");
  if (declared !== undefined) {
    if (Number(declared) > maxSize) throw tooLarge();
    return;
  }
  const bytes = await readBodyCapped(raw.body, maxSize);
  if (!bytes) throw tooLarge();
  c.req.raw = new Request(raw, { body: bytes });
}

/** JSON bodies are capped (413); multipart uploads set their own limit in their route. */
export const jsonBodyLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.req.raw.body || mediaType(c.req.header("content-type")) === "multipart/form-data") return next();
  const maxSize = jsonMaxBytes(c.env);
  await capRequestBody(c, maxSize, () => new ApiError("payload-too-large", { detail: `Request bodies are limited to ${maxSize} bytes.` }));
  return next();
};

/** Where a NUL character hides in a parsed JSON value (Postgres text cannot hold one), or null. */
function nulLocation(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, "body"]];
  while (stack.length) {
    const [v, loc] = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\0")) return loc;
    } else if (Array.isArray(v)) v.forEach((item, i) => stack.push([item, `${loc}[${i}]`]));
    else if (v && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        if (k.includes("\0")) return loc;
        stack.push([item, `${loc}.${k}`]);
      }
    }
  }
  return null;
}

const nulError = (location: string) =>
  new ApiError("validation-error", {
    detail: `${location} contains a NUL character, which Herald cannot store.`,
    errors: [{ location, message: "NUL characters are not allowed" }],
  });

/** Path segments and query values must not carry NUL characters either. */
export const rejectNulInUrl: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  let path = url.pathname;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    throw new ApiError("bad-request", { detail: "The request path is not valid percent-encoding." });
  }
  if (path.includes("\0")) throw nulError("path");
  for (const [key, value] of url.searchParams) if (value.includes("\0") || key.includes("\0")) throw nulError(`query.${key.replace(/\0/g, "")}`);
  return next();
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
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      throw new ApiError("bad-request", { detail: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` });
    }
    const nul = nulLocation(JSON.parse(text));
    if (nul) throw nulError(nul);
    return next();
  }
  if (text.length > 0) {
    throw new ApiError("bad-request", {
      detail: `Send the body as application/json${type ? ` (got ${type})` : " (no Content-Type given)"}.`,
    });
  }
  return next();
};

/**
 * After the answer, a request body nothing read (a 401, 403, 404 or 413 is answered before it) is read to its end and
 * dropped, chunk by chunk and bounded (lib/http/body-meter.ts). workerd lets nothing read it once the answer is sent,
 * and wrangler dev's proxy then fails the request (or the next one) with "503 Your worker restarted mid-request";
 * deployed, it costs reading what the client sends anyway.
 */
export const drainUnreadBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  // The request as it came: a gate further in may put a wrapper in c.req.raw.
  const raw = c.req.raw;
  await next();
  // Not `bodyUsed`: a gate that read part of the body and let go of it (jsonBodyLimit) leaves the rest to drop here.
  if (!raw.body || raw.body.locked) return;
  await discardBody(raw.body.getReader());
};

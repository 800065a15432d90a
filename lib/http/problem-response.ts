import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { publicBaseUrl } from "../env";
import { DomainError } from "../errors";
import { errorFields, logEvent } from "../log";
import { ApiError, ReadyResponse } from "./errors";
import { PROBLEMS, type ProblemSlug } from "./problems";
import { schemaUrl } from "./schema-url";

export function problemResponse(c: Context, error: ApiError): Response {
  const base = publicBaseUrl(c.env ?? {}, c.req.url);
  const { status, title } = PROBLEMS[error.slug];
  const body: Record<string, unknown> = {
    $schema: schemaUrl(base, "Problem"),
    type: `${base}/problems/${error.slug}`,
    title,
    status,
    detail: error.options.detail ?? title,
    ...error.options.extra,
  };
  if (error.options.errors) body.errors = error.options.errors;
  const headers: Record<string, string> = { "content-type": "application/problem+json", ...error.options.headers };
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="herald"';
  return new Response(JSON.stringify(body), { status, headers });
}

const HTTP_EXCEPTION_SLUGS: Record<number, ProblemSlug> = {
  400: "bad-request",
  401: "unauthorized",
  404: "not-found",
  413: "payload-too-large",
  415: "unsupported-media-type",
};

/** Postgres errors that mean "the database is not reachable right now" rather than a bug. */
function isUnavailable(err: unknown): boolean {
  const text = String((err as { message?: string })?.message ?? err);
  return /ECONNREFUSED|connect|WebSocket|terminated|timeout/i.test(text) && !/syntax/i.test(text);
}

/** The one place an exception becomes a response. */
export function handleError(err: unknown, c: Context): Response {
  if (err instanceof ApiError) return problemResponse(c, err);
  if (err instanceof DomainError) return problemResponse(c, new ApiError(err.slug, { detail: err.detail, ...err.options }));
  if (err instanceof ReadyResponse) return err.response;
  if (err instanceof HTTPException) {
    const slug = HTTP_EXCEPTION_SLUGS[err.status] ?? "bad-request";
    return problemResponse(c, new ApiError(slug, { detail: err.message || undefined }));
  }
  // Backstop for values Postgres refuses as text (NUL, invalid encodings): the client's input, not our bug.
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  if (code === "22021" || code === "22P05" || code === "54000") {
    return problemResponse(
      c,
      new ApiError("validation-error", { detail: "A value in the request cannot be stored as text (a NUL character or an invalid encoding)." }),
    );
  }
  const requestId = c.get("requestId");
  // The route's pattern, not the path or its query; the error's codes, not its message or stack.
  logEvent("error", "unhandled error", { request_id: requestId, method: c.req.method, route: c.req.routePath, ...errorFields(err) });
  if (isUnavailable(err)) {
    return problemResponse(
      c,
      new ApiError("service-unavailable", { detail: "A dependency did not answer; try again shortly.", headers: { "retry-after": "5" } }),
    );
  }
  return problemResponse(c, new ApiError("internal-error", { detail: `Unexpected error (request ${requestId}). This is a bug; it has been logged.` }));
}

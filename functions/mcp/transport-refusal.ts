import { ApiError } from "../../lib/http/errors";
import type { ProblemSlug } from "../../lib/http/problems";

/**
 * The MCP SDK's transport refuses a request at the HTTP level (a wrong Accept, a malformed JSON-RPC message) with a
 * JSON-RPC error body as application/json. Every other HTTP error of the service is problem+json, so a generic client
 * can read them all one way: the refusal becomes the same problem, its JSON-RPC message as the detail.
 */
const SLUG_OF_STATUS: Readonly<Record<number, ProblemSlug>> = {
  400: "bad-request",
  405: "method-not-allowed",
  406: "not-acceptable",
  409: "conflict",
  413: "payload-too-large",
  415: "unsupported-media-type",
};

export async function transportRefusal(answer: Response): Promise<ApiError> {
  const body: unknown = await answer.json().catch(() => null);
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  const slug = SLUG_OF_STATUS[answer.status] ?? "internal-error";
  const detail = typeof message === "string" && message.length <= 500 ? message : `The MCP transport refused the request (HTTP ${answer.status}).`;
  const allow = answer.headers.get("allow");
  return new ApiError(slug, { detail, ...(allow ? { headers: { allow } } : {}) });
}

/** Every problem type Herald answers with (CONTRACT.md §2), with its status and title. */
export const PROBLEMS = {
  "bad-request": { status: 400, title: "Bad request" },
  "confirmation-required": { status: 400, title: "Confirmation required" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
  "session-required": { status: 403, title: "Session required" },
  "plan-limit-reached": { status: 403, title: "Plan limit reached" },
  "not-found": { status: 404, title: "Not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  "revision-conflict": { status: 409, title: "Revision conflict" },
  conflict: { status: 409, title: "Conflict" },
  "not-editable": { status: 409, title: "Not editable" },
  "idempotency-key-in-use": { status: 409, title: "Idempotency key in use" },
  "payment-provider-not-configured": { status: 409, title: "Payment provider not configured" },
  "payload-too-large": { status: 413, title: "Payload too large" },
  "unsupported-media-type": { status: 415, title: "Unsupported media type" },
  "validation-error": { status: 422, title: "Validation error" },
  "idempotency-key-reused": { status: 422, title: "Idempotency key reused" },
  "invalid-continuation": { status: 422, title: "Invalid continuation" },
  "invalid-invitation": { status: 422, title: "Invalid invitation" },
  "rate-limited": { status: 429, title: "Rate limited" },
  "internal-error": { status: 500, title: "Internal error" },
  "not-implemented": { status: 501, title: "Not implemented" },
  "bad-gateway": { status: 502, title: "Bad gateway" },
  "service-unavailable": { status: 503, title: "Service unavailable" },
} as const;

export type ProblemSlug = keyof typeof PROBLEMS;

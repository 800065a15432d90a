import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { verifyContinuation } from "../../lib/billing/continuation";
import { currentUser, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { instanceKey } from "./create-purchase-choice";
import { ContinuationRequest, PurchaseChoice } from "./schemas";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/billing/purchase-choices/validate",
  operationId: "validatePurchaseChoice",
  tags: ["billing"],
  summary: "Validate a hosted plan purchase choice",
  description: "The same facts back while the token is intact, unexpired and the caller's; else 422 `invalid-continuation`.",
  request: { body: jsonBody(ContinuationRequest) },
  responses: { 200: jsonResponse(PurchaseChoice, "The choice's facts"), ...problems(400, 401, 413, 422) },
});

const REASONS = {
  malformed: "The continuation token is not one this instance issued.",
  signature: "The continuation token was altered.",
  expired: "The continuation token has expired (after 30 minutes); make a new purchase choice.",
  "other-user": "The continuation token belongs to another user.",
} as const;

/** The facts of a continuation token, or 422 invalid-continuation. */
export async function continuationOr422(env: AppEnv["Bindings"], userId: string, token: string) {
  const check = await verifyContinuation(instanceKey(env), userId, token);
  if (!check.ok) {
    throw new ApiError("invalid-continuation", {
      detail: REASONS[check.reason],
      errors: [{ location: "body.continuation_token", message: REASONS[check.reason] }],
    });
  }
  return check.facts;
}

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { continuation_token } = c.req.valid("json");
  const facts = await continuationOr422(c.env, currentUser(c).id, continuation_token);
  return c.json(withSchema(c, PurchaseChoice, { ...facts, continuation_token }), 200);
};

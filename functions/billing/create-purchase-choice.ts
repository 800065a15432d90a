import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { signContinuation } from "../../lib/billing/continuation";
import { personalOrganizationId } from "../../lib/billing/organizations";
import { purchaseFacts } from "../../lib/billing/purchase";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { PurchaseChoice, PurchaseChoiceRequest } from "./schemas";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/billing/purchase-choices",
  operationId: "createPurchaseChoice",
  tags: ["billing"],
  summary: "Create a hosted plan purchase choice",
  description:
    "Price, trial, payment and expiry facts for buying a plan for the caller's personal organization, in a continuation token signed by the instance (HMAC under a key derived from INSTANCE_SECRET_KEY), bound to the caller and valid 30 minutes. Creates nothing: a retry simply gets a fresh token.",
  request: { body: jsonBody(PurchaseChoiceRequest) },
  responses: { 201: jsonResponse(PurchaseChoice, "The choice and its continuation token"), ...problems(400, 401, 413, 422) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  const q = db(c);
  const facts = await purchaseFacts(c.env, q, await personalOrganizationId(q, user.id), body.plan_id, body.interval);
  const token = await signContinuation(instanceKey(c.env), user.id, facts);
  return c.json(withSchema(c, PurchaseChoice, { ...facts, continuation_token: token }), 201);
};

export function instanceKey(env: AppEnv["Bindings"]): string {
  const key = env.INSTANCE_SECRET_KEY;
  if (!key) throw new Error("INSTANCE_SECRET_KEY is not set");
  return key;
}

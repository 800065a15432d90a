import { createGroupApp } from "../../lib/http/app";
import * as createPurchaseChoice from "./create-purchase-choice";
import * as getStatus from "./get-status";
import * as stripeWebhook from "./stripe-webhook";
import * as validatePurchaseChoice from "./validate-purchase-choice";

/** Billing: plan, limits, usage and provider costs; purchase choices; the Stripe webhook. */
const app = createGroupApp();
app.openapi(getStatus.route, getStatus.handler);
app.openapi(createPurchaseChoice.route, createPurchaseChoice.handler);
app.openapi(validatePurchaseChoice.route, validatePurchaseChoice.handler);
app.openapi(stripeWebhook.route, stripeWebhook.handler);

export default app;

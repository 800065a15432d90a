import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as createPurchaseChoice from "./create-purchase-choice";
import * as getStatus from "./get-status";
import * as stripeWebhook from "./stripe-webhook";
import * as validatePurchaseChoice from "./validate-purchase-choice";

/** Billing: plan, limits, usage and provider costs; purchase choices; the Stripe webhook. */
const app = createGroupApp();
register(app, getStatus);
register(app, createPurchaseChoice);
register(app, validatePurchaseChoice);
register(app, stripeWebhook);

export default app;

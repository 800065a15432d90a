import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as cancel from "./cancel";
import * as checkout from "./checkout";
import * as createPurchaseChoice from "./create-purchase-choice";
import * as getStatus from "./get-status";
import * as portal from "./portal";
import * as resume from "./resume";
import * as stripeWebhook from "./stripe-webhook";
import * as validatePurchaseChoice from "./validate-purchase-choice";

/** Billing: plan, limits, usage and provider costs; purchase choices; checkout, portal, cancel and resume; the Stripe webhook. */
const app = createGroupApp();
register(app, getStatus);
register(app, createPurchaseChoice);
register(app, validatePurchaseChoice);
register(app, checkout);
register(app, portal);
register(app, cancel);
register(app, resume);
register(app, stripeWebhook);

export default app;

import { createGroupApp } from "../../lib/http/app";
import * as getStatus from "./get-status";

/** Billing: plan, limits, usage and provider costs. */
const app = createGroupApp();
app.openapi(getStatus.route, getStatus.handler);

export default app;

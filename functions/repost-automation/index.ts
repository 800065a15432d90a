import { createGroupApp } from "../../lib/http/app";
import * as getSettings from "./get-settings";

/** Repost automation: rules, cross-workspace grants and the accounts they can use. */
const app = createGroupApp();
app.openapi(getSettings.route, getSettings.handler);

export default app;

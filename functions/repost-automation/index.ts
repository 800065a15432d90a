import { createGroupApp } from "../../lib/http/app";
import * as createGrant from "./create-grant";
import * as createPolicy from "./create-policy";
import * as deleteGrant from "./delete-grant";
import * as deletePolicy from "./delete-policy";
import * as getSettings from "./get-settings";
import * as listActivity from "./list-activity";
import * as replacePolicy from "./replace-policy";

/** Repost automation: rules, cross-workspace grants, the accounts they can use, and what the evaluator did. */
const app = createGroupApp();
app.openapi(getSettings.route, getSettings.handler);
app.openapi(listActivity.route, listActivity.handler);
app.openapi(createPolicy.route, createPolicy.handler);
app.openapi(replacePolicy.route, replacePolicy.handler);
app.openapi(deletePolicy.route, deletePolicy.handler);
app.openapi(createGrant.route, createGrant.handler);
app.openapi(deleteGrant.route, deleteGrant.handler);

export default app;

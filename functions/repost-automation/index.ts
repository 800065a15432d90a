import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as createGrant from "./create-grant";
import * as createPolicy from "./create-policy";
import * as deleteGrant from "./delete-grant";
import * as deletePolicy from "./delete-policy";
import * as getSettings from "./get-settings";
import * as listActivity from "./list-activity";
import * as replacePolicy from "./replace-policy";

/** Repost automation: rules, cross-workspace grants, the accounts they can use, and what the evaluator did. */
const app = createGroupApp();
register(app, getSettings);
register(app, listActivity);
register(app, createPolicy);
register(app, replacePolicy);
register(app, deletePolicy);
register(app, createGrant);
register(app, deleteGrant);

export default app;

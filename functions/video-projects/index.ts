import { createGroupApp } from "../../lib/http/app";
import * as applyMutations from "./apply-mutations";
import * as create from "./create";
import * as get from "./get";
import * as listConflicts from "./list-conflicts";
import * as resolveConflict from "./resolve-conflict";

/** Video projects: versioned mutation batches with conflict branches. */
const app = createGroupApp();
app.openapi(create.route, create.handler);
app.openapi(get.route, get.handler);
app.openapi(applyMutations.route, applyMutations.handler);
app.openapi(listConflicts.route, listConflicts.handler);
app.openapi(resolveConflict.route, resolveConflict.handler);

export default app;

import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as applyMutations from "./apply-mutations";
import * as create from "./create";
import * as get from "./get";
import * as listConflicts from "./list-conflicts";
import * as resolveConflict from "./resolve-conflict";

/** Video projects: versioned mutation batches with conflict branches. */
const app = createGroupApp();
register(app, create);
register(app, get);
register(app, applyMutations);
register(app, listConflicts);
register(app, resolveConflict);

export default app;

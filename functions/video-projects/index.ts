import { createGroupApp } from "../../lib/http/app";
import * as applyMutations from "./apply-mutations";

/** Video projects: versioned mutation batches with conflict branches. */
const app = createGroupApp();
app.openapi(applyMutations.route, applyMutations.handler);

export default app;

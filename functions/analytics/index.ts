import { createGroupApp } from "../../lib/http/app";
import * as overview from "./overview";
import * as refresh from "./refresh";

/** Analytics: stored overview and collection runs. */
const app = createGroupApp();
app.openapi(refresh.route, refresh.handler);
app.openapi(overview.route, overview.handler);

export default app;

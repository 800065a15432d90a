import { createGroupApp } from "../../lib/http/app";
import * as importMeasurements from "./import";
import * as overview from "./overview";
import * as refresh from "./refresh";

/** Analytics: stored overview, collection runs and imports. */
const app = createGroupApp();
app.openapi(refresh.route, refresh.handler);
app.openapi(overview.route, overview.handler);
app.openapi(importMeasurements.route, importMeasurements.handler);

export default app;

import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as importMeasurements from "./import";
import * as overview from "./overview";
import * as refresh from "./refresh";

/** Analytics: stored overview, collection runs and imports. */
const app = createGroupApp();
register(app, refresh);
register(app, overview);
register(app, importMeasurements);

export default app;

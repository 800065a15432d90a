import { createGroupApp } from "../../lib/http/app";
import * as refresh from "./refresh";

/** Analytics: stored overview and collection runs. */
const app = createGroupApp();
app.openapi(refresh.route, refresh.handler);

export default app;

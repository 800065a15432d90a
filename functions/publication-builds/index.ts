import { createGroupApp } from "../../lib/http/app";
import * as discover from "./discover";
import * as getBuild from "./get-build";

/** Publication builds (generated plans) and content opportunity discovery. */
const app = createGroupApp();
app.openapi(getBuild.route, getBuild.handler);
app.openapi(discover.route, discover.handler);

export default app;

import { createGroupApp } from "../../lib/http/app";
import * as commit from "./commit";
import * as create from "./create";
import * as discover from "./discover";
import * as getBuild from "./get-build";
import * as list from "./list";

/** Publication builds (generated plans) and content opportunity discovery. */
const app = createGroupApp();
app.openapi(create.route, create.handler);
app.openapi(list.route, list.handler);
app.openapi(getBuild.route, getBuild.handler);
app.openapi(commit.route, commit.handler);
app.openapi(discover.route, discover.handler);

export default app;

import { createGroupApp } from "../../lib/http/app";
import * as file from "./file";
import * as get from "./get";
import * as list from "./list";
import * as restore from "./restore";
import * as trash from "./trash";
import * as update from "./update";
import * as upload from "./upload";

/** The media library: library, temporary and trash lifecycles. */
const app = createGroupApp();
app.openapi(upload.route, upload.handler);
app.openapi(list.route, list.handler);
app.openapi(get.route, get.handler);
app.openapi(file.route, file.handler);
app.openapi(update.route, update.handler);
app.openapi(trash.route, trash.handler);
app.openapi(restore.route, restore.handler);

export default app;

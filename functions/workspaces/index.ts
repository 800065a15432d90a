import { createGroupApp } from "../../lib/http/app";
import * as addMember from "./add-member";
import * as create from "./create";
import * as list from "./list";
import * as update from "./update";

/** Workspaces and their members. */
const app = createGroupApp();
app.openapi(create.route, create.handler);
app.openapi(list.route, list.handler);
app.openapi(update.route, update.handler);
app.openapi(addMember.route, addMember.handler);

export default app;

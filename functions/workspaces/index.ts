import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as addMember from "./add-member";
import * as create from "./create";
import * as list from "./list";
import * as update from "./update";

/** Workspaces and their members. */
const app = createGroupApp();
register(app, create);
register(app, list);
register(app, update);
register(app, addMember);

export default app;

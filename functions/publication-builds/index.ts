import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as commit from "./commit";
import * as create from "./create";
import * as discover from "./discover";
import * as getBuild from "./get-build";
import * as list from "./list";

/** Publication builds (generated plans) and content opportunity discovery. */
const app = createGroupApp();
register(app, create);
register(app, list);
register(app, getBuild);
register(app, commit);
register(app, discover);

export default app;

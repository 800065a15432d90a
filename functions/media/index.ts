import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as file from "./file";
import * as get from "./get";
import * as list from "./list";
import * as restore from "./restore";
import * as trash from "./trash";
import * as update from "./update";
import * as upload from "./upload";

/** The media library: library, temporary and trash lifecycles. */
const app = createGroupApp();
register(app, upload);
register(app, list);
register(app, get);
register(app, file);
register(app, update);
register(app, trash);
register(app, restore);

export default app;

import { createGroupApp } from "../../lib/http/app";
import * as list from "./list";

/** The media library: library, temporary and trash lifecycles. */
const app = createGroupApp();
app.openapi(list.route, list.handler);

export default app;

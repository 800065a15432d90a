import { createGroupApp } from "../../lib/http/app";
import * as cancel from "./cancel";
import * as create from "./create";
import * as get from "./get";
import * as del from "./delete";
import * as list from "./list";
import * as publishNow from "./publish-now";
import * as update from "./update";

/** Publications: composing, scheduling and publishing content. */
const app = createGroupApp();
app.openapi(create.route, create.handler);
app.openapi(get.route, get.handler);
app.openapi(list.route, list.handler);
app.openapi(update.route, update.handler);
app.openapi(publishNow.route, publishNow.handler);
app.openapi(del.route, del.handler);
app.openapi(cancel.route, cancel.handler);

export default app;

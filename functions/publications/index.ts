import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as cancel from "./cancel";
import * as create from "./create";
import * as get from "./get";
import * as del from "./delete";
import * as list from "./list";
import * as publishNow from "./publish-now";
import * as update from "./update";

/** Publications: composing, scheduling and publishing content. */
const app = createGroupApp();
register(app, create);
register(app, get);
register(app, list);
register(app, update);
register(app, publishNow);
register(app, del);
register(app, cancel);

export default app;

import { createGroupApp } from "../../lib/http/app";
import * as create from "./create";
import * as get from "./get";
import * as list from "./list";
import * as remove from "./delete";
import * as replace from "./replace";
import * as setDefault from "./set-default";

/** Voice Profiles: how a workspace's content is written. */
const app = createGroupApp();
app.openapi(create.route, create.handler);
app.openapi(list.route, list.handler);
app.openapi(get.route, get.handler);
app.openapi(replace.route, replace.handler);
app.openapi(remove.route, remove.handler);
app.openapi(setDefault.route, setDefault.handler);

export default app;

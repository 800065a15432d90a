import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as create from "./create";
import * as get from "./get";
import * as list from "./list";
import * as remove from "./delete";
import * as replace from "./replace";
import * as setDefault from "./set-default";

/** Voice Profiles: how a workspace's content is written. */
const app = createGroupApp();
register(app, create);
register(app, list);
register(app, get);
register(app, replace);
register(app, remove);
register(app, setDefault);

export default app;

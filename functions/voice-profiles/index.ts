import { createGroupApp } from "../../lib/http/app";
import * as setDefault from "./set-default";

/** Voice Profiles: how a workspace's content is written. */
const app = createGroupApp();
app.openapi(setDefault.route, setDefault.handler);

export default app;

import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as endSession from "./end-session";
import * as endpoint from "./endpoint";
import * as stream from "./stream";

/** MCP: the Model Context Protocol endpoint, its tools calling the other groups' operations. */
const app = createGroupApp();
register(app, endpoint);
register(app, stream);
register(app, endSession);

export default app;

import { createGroupApp } from "../../lib/http/app";
import * as createUser from "./create-user";

/** Instance administration (instance administrators only). */
const app = createGroupApp();
app.openapi(createUser.route, createUser.handler);

export default app;

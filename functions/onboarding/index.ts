import { createGroupApp } from "../../lib/http/app";
import * as firstWorkspace from "./first-workspace";

/** Onboarding: a new owner's first workspace and purchase. */
const app = createGroupApp();
app.openapi(firstWorkspace.route, firstWorkspace.handler);

export default app;

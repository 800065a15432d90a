import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as firstWorkspace from "./first-workspace";

/** Onboarding: a new owner's first workspace and purchase. */
const app = createGroupApp();
register(app, firstWorkspace);

export default app;

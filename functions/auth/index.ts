import { createGroupApp } from "../../lib/http/app";
import * as createToken from "./create-token";
import * as me from "./me";
import * as passkeysFinish from "./passkeys-finish";
import * as revokeToken from "./revoke-token";

/** Identity of the caller: profile, API tokens, passkeys. */
const app = createGroupApp();
app.openapi(me.route, me.handler);
app.openapi(createToken.route, createToken.handler);
app.openapi(revokeToken.route, revokeToken.handler);
app.openapi(passkeysFinish.route, passkeysFinish.handler);

export default app;

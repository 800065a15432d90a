import { createGroupApp } from "../../lib/http/app";
import * as createToken from "./create-token";
import * as me from "./me";
import * as passkeysDelete from "./passkeys-delete";
import * as passkeysFinish from "./passkeys-finish";
import * as passkeysStart from "./passkeys-start";
import * as revokeToken from "./revoke-token";
import * as securityPage from "./security-page";
import * as securityStatus from "./security-status";
import * as sessionsDelete from "./sessions-delete";
import * as sessionsFinish from "./sessions-finish";
import * as sessionsStart from "./sessions-start";

/** Identity of the caller: profile, API tokens, passkeys, browser sessions and the page that manages them. */
const app = createGroupApp();
app.openapi(me.route, me.handler);
app.openapi(createToken.route, createToken.handler);
app.openapi(revokeToken.route, revokeToken.handler);
app.openapi(securityStatus.route, securityStatus.handler);
app.openapi(passkeysStart.route, passkeysStart.handler);
app.openapi(passkeysFinish.route, passkeysFinish.handler);
app.openapi(passkeysDelete.route, passkeysDelete.handler);
app.openapi(sessionsStart.route, sessionsStart.handler);
app.openapi(sessionsFinish.route, sessionsFinish.handler);
app.openapi(sessionsDelete.route, sessionsDelete.handler);
securityPage.mount(app);

export default app;

import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as createToken from "./create-token";
import * as listTokens from "./list-tokens";
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
register(app, me);
register(app, listTokens);
register(app, createToken);
register(app, revokeToken);
register(app, securityStatus);
register(app, passkeysStart);
register(app, passkeysFinish);
register(app, passkeysDelete);
register(app, sessionsStart);
register(app, sessionsFinish);
register(app, sessionsDelete);
securityPage.mount(app);

export default app;

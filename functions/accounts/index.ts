import { createGroupApp } from "../../lib/http/app";
import * as create from "./create";
import * as remove from "./delete";
import * as list from "./list";
import * as listMessages from "./list-messages";
import * as listProviders from "./list-providers";
import * as refreshMessages from "./refresh-messages";
import * as refreshMetadata from "./refresh-metadata";

/** Connected social accounts, their providers, and message collection. */
const app = createGroupApp();
// The fixed path first, so `/accounts/providers` is never read as an account id.
app.openapi(listProviders.route, listProviders.handler);
app.openapi(create.route, create.handler);
app.openapi(list.route, list.handler);
app.openapi(remove.route, remove.handler);
app.openapi(refreshMetadata.route, refreshMetadata.handler);
app.openapi(refreshMessages.route, refreshMessages.handler);
app.openapi(listMessages.route, listMessages.handler);

export default app;

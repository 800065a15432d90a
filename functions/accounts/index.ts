import { createGroupApp } from "../../lib/http/app";
import * as listProviders from "./list-providers";
import * as refreshMessages from "./refresh-messages";
import * as refreshMetadata from "./refresh-metadata";

/** Connected social accounts, their providers, and message collection. */
const app = createGroupApp();
app.openapi(listProviders.route, listProviders.handler);
app.openapi(refreshMetadata.route, refreshMetadata.handler);
app.openapi(refreshMessages.route, refreshMessages.handler);

export default app;

import { createGroupApp } from "../../lib/http/app";
import * as listTemplates from "./list-templates";
import * as restoreRevision from "./restore-revision";
import * as updateTemplate from "./update-template";

/** Image editor: designs with revisions, built-in and workspace templates. */
const app = createGroupApp();
app.openapi(restoreRevision.route, restoreRevision.handler);
app.openapi(listTemplates.route, listTemplates.handler);
app.openapi(updateTemplate.route, updateTemplate.handler);

export default app;

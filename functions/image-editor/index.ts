import { createGroupApp } from "../../lib/http/app";
import * as createDesign from "./create-design";
import * as createTemplate from "./create-template";
import * as getDesign from "./get-design";
import * as listRevisions from "./list-revisions";
import * as listTemplates from "./list-templates";
import * as restoreRevision from "./restore-revision";
import * as updateDesign from "./update-design";
import * as updateTemplate from "./update-template";

/** Image editor: designs with revisions, built-in and workspace templates. */
const app = createGroupApp();
app.openapi(createDesign.route, createDesign.handler);
app.openapi(getDesign.route, getDesign.handler);
app.openapi(updateDesign.route, updateDesign.handler);
app.openapi(listRevisions.route, listRevisions.handler);
app.openapi(restoreRevision.route, restoreRevision.handler);
app.openapi(createTemplate.route, createTemplate.handler);
app.openapi(listTemplates.route, listTemplates.handler);
app.openapi(updateTemplate.route, updateTemplate.handler);

export default app;

import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
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
register(app, createDesign);
register(app, getDesign);
register(app, updateDesign);
register(app, listRevisions);
register(app, restoreRevision);
register(app, createTemplate);
register(app, listTemplates);
register(app, updateTemplate);

export default app;

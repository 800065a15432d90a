import { createGroupApp } from "../../lib/http/app";
import * as auditEvidence from "./audit-evidence";
import * as createUser from "./create-user";
import * as getInstanceSettings from "./get-instance-settings";
import * as jobMetrics from "./job-metrics";
import * as listJobs from "./list-jobs";
import * as redriveJob from "./redrive-job";
import * as setPlanOverride from "./set-plan-override";
import * as updateInstanceSettings from "./update-instance-settings";

/** Instance administration (instance administrators only). */
const app = createGroupApp();
app.openapi(createUser.route, createUser.handler);
app.openapi(auditEvidence.route, auditEvidence.handler);
app.openapi(getInstanceSettings.route, getInstanceSettings.handler);
app.openapi(updateInstanceSettings.route, updateInstanceSettings.handler);
app.openapi(listJobs.route, listJobs.handler);
app.openapi(jobMetrics.route, jobMetrics.handler);
app.openapi(redriveJob.route, redriveJob.handler);
app.openapi(setPlanOverride.route, setPlanOverride.handler);

export default app;

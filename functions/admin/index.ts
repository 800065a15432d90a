import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
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
register(app, createUser);
register(app, auditEvidence);
register(app, getInstanceSettings);
register(app, updateInstanceSettings);
register(app, listJobs);
register(app, jobMetrics);
register(app, redriveJob);
register(app, setPlanOverride);

export default app;

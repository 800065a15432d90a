import { queueWorker } from "../lib/jobs/queue-worker";
import { schedulerRuns } from "../lib/jobs/scheduling-worker";
import { evaluateRepostPolicies } from "../lib/repost/run-evaluator";

/** Evaluates repost policies (cron each minute; `POST /drain` on demand with DRAIN_SECRET). */
export default queueWorker(schedulerRuns("queued", evaluateRepostPolicies));

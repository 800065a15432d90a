import { queueDueAccounts } from "../lib/analytics/schedule";
import { queueWorker } from "../lib/jobs/queue-worker";
import { schedulerRuns } from "../lib/jobs/scheduling-worker";

/**
 * Keeps analytics fresh without anyone asking: queues a collection job for each account whose
 * next_eligible_at has passed (cron each minute; `POST /drain` on demand with DRAIN_SECRET).
 */
export default queueWorker(schedulerRuns("queued", queueDueAccounts));

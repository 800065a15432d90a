import { analyticsRefresh } from "../lib/analytics/refresh-job";
import { consumerRuns } from "../lib/jobs/consumer-worker";
import { queueWorker } from "../lib/jobs/queue-worker";

/**
 * Collects one account per job (lib/analytics/refresh-job.ts): the provider is read with no transaction
 * open, failures are recorded on the account's coverage with their backoff, the run is counted with the
 * job's receipt.
 */
export { analyticsRefresh };

export default queueWorker(consumerRuns(analyticsRefresh));

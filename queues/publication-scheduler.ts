import { sweepStalledDeliveries } from "../lib/delivery/stalled";
import { queueWorker } from "../lib/jobs/queue-worker";
import { schedulerRuns } from "../lib/jobs/scheduling-worker";
import { startDuePublications } from "../lib/publishing/schedule";

/**
 * Each minute (cron; `POST /drain` on demand with DRAIN_SECRET): queues due scheduled publications, and takes up
 * or ends deliveries that stopped (lib/delivery/stalled.ts sweepStalledDeliveries), so none stays publishing.
 */
export default queueWorker(schedulerRuns("started", async (db) => [...(await startDuePublications(db)), ...(await sweepStalledDeliveries(db))]));

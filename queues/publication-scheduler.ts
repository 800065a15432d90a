import { schedulingWorker } from "../lib/jobs/scheduling-worker";
import { startDuePublications } from "../lib/publishing/schedule";

/** Queues due scheduled publications (cron each minute; `POST /drain` on demand with DRAIN_SECRET). */
export default schedulingWorker("started", startDuePublications);

import { endUnheldRenditions } from "../lib/delivery/stalled";
import { dueRenditions, type DueRenditions } from "../lib/delivery/store";
import { processPublication } from "../lib/delivery/job";
import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { consumerRuns } from "../lib/jobs/consumer-worker";
import { queueWorker } from "../lib/jobs/queue-worker";

/**
 * Delivers a publication's renditions (lib/delivery). Each step commits as it goes ("steps" mode), so a
 * redelivered or retried job continues where the last one stopped and never posts a confirmed segment twice.
 * A job given up after its last attempt ends the renditions nobody holds, so none waits for a job that is gone.
 */
export const publish: ConsumerDefinition<"publication.publish", DueRenditions> = {
  kind: "publication.publish",
  mode: "steps",
  firstRead: (q, job) => dueRenditions(q, job.payload.publication_id),
  handle: ({ db, env, job, first }) => processPublication(db, env, job.payload.publication_id, job.job_id, first),
  onGiveUp: ({ db, job }) => endUnheldRenditions(db, job.payload.publication_id),
};

export default queueWorker(consumerRuns(publish));

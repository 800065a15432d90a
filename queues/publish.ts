import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { createConsumerWorker } from "../lib/jobs/consumer-worker";
import { dueRenditions, processPublication, type DueRenditions } from "../lib/publishing/process-publication";
import type { PublishJobPayload } from "../lib/publishing/start";

/**
 * Delivers a publication's renditions. Each step commits as it goes ("steps" mode), so a redelivered
 * or retried job continues where the last one stopped and never posts a segment twice.
 */
export const publish: ConsumerDefinition<PublishJobPayload> = {
  kind: "publication.publish",
  mode: "steps",
  firstRead: (q, job) => dueRenditions(q, job.payload.publication_id),
  handle: ({ db, env, job, first }) => processPublication(db, env, job.payload.publication_id, job.job_id, first as DueRenditions),
};

export default createConsumerWorker(publish);

import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { createConsumerWorker } from "../lib/jobs/consumer-worker";
import { processPublication } from "../lib/publishing/process-publication";
import type { PublishJobPayload } from "../lib/publishing/start";

/**
 * Delivers a publication's renditions. Each step commits as it goes ("steps" mode), so a redelivered
 * or retried job continues where the last one stopped and never posts a segment twice.
 */
export const publish: ConsumerDefinition<PublishJobPayload> = {
  kind: "publication.publish",
  mode: "steps",
  async handle({ db, env, job }) {
    await processPublication(db, env, job.payload.publication_id, job.job_id);
  },
};

export default createConsumerWorker(publish);

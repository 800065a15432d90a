import { deliverEvent } from "../lib/events/deliver";
import { giveUpDeliveries } from "../lib/events/store";
import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { consumerRuns } from "../lib/jobs/consumer-worker";
import { queueWorker } from "../lib/jobs/queue-worker";

/**
 * Sends outbound events to their endpoints (lib/events/deliver.ts). "steps" mode: it calls the outside world, and
 * each attempt takes its delivery by compare-and-set and records its own outcome, so a redelivered message neither
 * sends twice at once nor counts an attempt twice. Retries are new jobs at the database's time, not SQS retries;
 * this job's own retries cover a database or SQS failure.
 */
export const eventDeliver: ConsumerDefinition<"event.deliver"> = {
  kind: "event.deliver",
  mode: "steps",
  async handle({ db, env, job }) {
    await deliverEvent(db, env, job.payload);
  },
  async onGiveUp({ db, job }) {
    await giveUpDeliveries(db, job.payload);
  },
};

export default queueWorker(consumerRuns(eventDeliver));

/**
 * Every kind of job Herald queues. Each has its own SQS queue (and dead-letter queue) whose URL comes
 * from `SQS_QUEUE_URL_<KEY>`, and one consumer under queues/.
 */
export const JOB_KINDS = {
  "analytics.refresh": { queueKey: "ANALYTICS", queueName: "herald-analytics" },
  "messages.refresh": { queueKey: "MESSAGES", queueName: "herald-messages" },
  "publication.publish": { queueKey: "PUBLISH", queueName: "herald-publish" },
  "build.generate": { queueKey: "BUILDS", queueName: "herald-builds" },
  "repost.execute": { queueKey: "REPOSTS", queueName: "herald-reposts" },
} as const;

export type JobKind = keyof typeof JOB_KINDS;

export const isJobKind = (kind: string): kind is JobKind => Object.hasOwn(JOB_KINDS, kind);

/** The message body on the wire: the job id lets consumers recognise a redelivery. */
export interface JobMessage<P = unknown> {
  job_id: string;
  kind: JobKind;
  workspace_id: string | null;
  payload: P;
  /** Set on retries: which attempt this delivery is (the first has none). */
  attempt?: number;
  /** The id of the request that caused the job, when one did (outbox_jobs.request_id): for its logs. */
  request_id?: string;
  /** On dead-lettered messages: why the last attempt failed. */
  last_error?: string;
}

export const queueUrlVar = (kind: JobKind) => `SQS_QUEUE_URL_${JOB_KINDS[kind].queueKey}` as const;
export const deadLetterUrlVar = (kind: JobKind) => `SQS_QUEUE_URL_${JOB_KINDS[kind].queueKey}_DLQ` as const;

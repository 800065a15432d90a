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
  "event.deliver": { queueKey: "EVENTS", queueName: "herald-events" },
} as const;

export type JobKind = keyof typeof JOB_KINDS;

/** `analytics.refresh`: one account's collection (`account_id`), counted into the run that asked for it (`run_id`, when any). */
export interface AnalyticsRefreshPayload {
  run_id?: string;
  account_id?: string;
}

/** `messages.refresh`: one account's mentions and replies. */
export interface MessagesRefreshPayload {
  account_id: string;
}

/** `publication.publish`: deliver a publication's renditions. */
export interface PublishJobPayload {
  publication_id: string;
}

/** `build.generate`: generate one publication build. */
export interface BuildGeneratePayload {
  build_id: string;
}

/** `repost.execute`: repost one queued attempt. */
export interface RepostJobPayload {
  attempt_id: string;
}

/** `event.deliver`: send an outbound event to its endpoints (lib/events/deliver.ts): every due delivery of it, or one. */
export interface EventDeliverPayload {
  event_id: string;
  delivery_id?: string;
}

/** Each kind's payload: what `enqueueJob` takes and its consumer's `job.payload` is. */
export interface JobPayloads {
  "analytics.refresh": AnalyticsRefreshPayload;
  "messages.refresh": MessagesRefreshPayload;
  "publication.publish": PublishJobPayload;
  "build.generate": BuildGeneratePayload;
  "repost.execute": RepostJobPayload;
  "event.deliver": EventDeliverPayload;
}

/** The payload of a job of kind K (an error here means a kind above has no payload in JobPayloads). */
export type JobPayload<K extends JobKind> = JobPayloads[K];

/**
 * What a dead-letter record (`deadLetter: true`) of each kind carries: its payload, and for a publication the
 * rendition given up on and why (lib/delivery/settle.ts).
 */
export interface DeadLetterPayloads extends JobPayloads {
  "publication.publish": PublishJobPayload & { rendition_id: string; error_code: string | null; terminal_reason: string | null };
}

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

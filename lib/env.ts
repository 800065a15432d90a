/** Bindings and variables every Worker of Herald may receive (CONTRACT.md §1). */
export interface Env {
  DATABASE_URL: string;
  /** Local only: host:port/path of the WebSocket-to-TCP relay that lets the Neon driver reach a plain Postgres. */
  NEON_WS_PROXY?: string;
  /** Local only: URL of the SQL-over-HTTP endpoint (local/sql-over-http.ts) that answers single statements. */
  NEON_FETCH_ENDPOINT?: string;
  PUBLIC_BASE_URL?: string;
  INSTANCE_SECRET_KEY?: string;
  /** The key INSTANCE_SECRET_KEY replaced, while secrets sealed by it are re-saved (lib/settings/secret-box.ts). */
  INSTANCE_SECRET_KEY_PREVIOUS?: string;
  /** Largest accepted JSON request body in bytes (default 1 MiB). */
  MAX_BODY_BYTES?: string;
  /** Requests per token per minute before 429 rate-limited (lib/http/rate-limit.ts); 1200 when unset. */
  RATE_LIMIT_PER_MINUTE?: string;
  ALLOW_PRIVATE_URLS?: string;
  /** Tests only: "1" checks every 2xx answer against its route's declared schema (lib/http/response-check.ts). */
  CHECK_RESPONSES?: string;
  /** Object storage for the media library (R2; wrangler.toml [[r2_buckets]] binding = "MEDIA_BUCKET"). */
  MEDIA_BUCKET?: R2Bucket;
  /** Largest accepted media upload in bytes (default in lib/media/limits.ts). */
  MEDIA_MAX_BYTES?: string;
  /** Shared secret for consumer Workers' `POST /drain` (lib/jobs/drain-auth.ts); unset = endpoint off. */
  DRAIN_SECRET?: string;
  /** Service bindings to consumer Workers, nudged after a commit (lib/jobs/nudge.ts): NUDGE_PUBLISH, … */
  [nudge: `NUDGE_${string}`]: Fetcher | undefined;
  /** The outbox relay's service bindings to every other Worker, whose minute its one cron starts (lib/jobs/minute.ts). */
  [cron: `CRON_${string}`]: Fetcher | undefined;
  /** Local only: the all-in-one consumers Worker, nudged when there is no service binding. */
  CONSUMERS_URL?: string;
  SQS_ENDPOINT?: string;
  SQS_REGION?: string;
  SQS_ACCESS_KEY_ID?: string;
  SQS_SECRET_ACCESS_KEY?: string;
  /** One queue URL per job kind; see lib/jobs/kinds.ts. */
  [queueUrl: `SQS_QUEUE_URL_${string}`]: string | undefined;
}

export function publicBaseUrl(env: Pick<Env, "PUBLIC_BASE_URL">, requestUrl?: string): string {
  if (env.PUBLIC_BASE_URL) return env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  if (requestUrl) return new URL(requestUrl).origin;
  return "http://localhost:8787";
}

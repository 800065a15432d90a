/** Bindings and variables every Worker of Herald may receive (CONTRACT.md §1). */
export interface Env {
  /** Postgres (a Neon URL when deployed; `npm start` points it at its embedded Postgres). */
  DATABASE_URL: string;
  /** Local only: host:port/path of the WebSocket-to-TCP relay that lets the Neon driver reach a plain Postgres. */
  NEON_WS_PROXY?: string;
  /** Local only: URL of the SQL-over-HTTP endpoint (local/sql-over-http.ts) that answers single statements. */
  NEON_FETCH_ENDPOINT?: string;
  /** Origin people and providers reach Herald at: `$schema` URLs, links, the passkey origin (default: the request's). */
  PUBLIC_BASE_URL?: string;
  /** Key for secrets at rest (AES-GCM): provider credentials, secret settings (lib/settings/secret-box.ts). */
  INSTANCE_SECRET_KEY?: string;
  /** The key INSTANCE_SECRET_KEY replaced, while secrets sealed by it are re-saved (lib/settings/secret-box.ts). */
  INSTANCE_SECRET_KEY_PREVIOUS?: string;
  /** Largest accepted JSON request body in bytes (default 1 MiB). */
  MAX_BODY_BYTES?: string;
  /** Requests per token per minute before 429 rate-limited (lib/http/rate-limit.ts); 1200 when unset. */
  RATE_LIMIT_PER_MINUTE?: string;
  /** "true": webhooks, instances and provider bases may be on loopback or private addresses (`npm start`, tests). */
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
  /** The SQS endpoint jobs are sent to (AWS's own for the region when unset). */
  SQS_ENDPOINT?: string;
  /** The SQS region (us-east-1 when unset). */
  SQS_REGION?: string;
  /** The access key id of the IAM user allowed to use the queues. */
  SQS_ACCESS_KEY_ID?: string;
  /** That IAM user's secret access key. */
  SQS_SECRET_ACCESS_KEY?: string;
  /** One queue URL per job kind; see lib/jobs/kinds.ts. */
  [queueUrl: `SQS_QUEUE_URL_${string}`]: string | undefined;
}

export function publicBaseUrl(env: Pick<Env, "PUBLIC_BASE_URL">, requestUrl?: string): string {
  if (env.PUBLIC_BASE_URL) return env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  if (requestUrl) return new URL(requestUrl).origin;
  return "http://localhost:8787";
}

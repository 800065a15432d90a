/**
 * Herald's one retry policy: every path that tries again reads its cap and its delay curve here. Pure: no SQS,
 * no clock, no I/O (a caller passes `random` and `now` to make a delay exact).
 *
 * - Jobs, publication deliveries and event deliveries (CONTRACT §4): at most MAX_ATTEMPTS attempts, spaced by
 *   retryDelaySeconds. For a job, its receives before the dead-letter queue; for a delivery, its attempts per
 *   round, reconciliations included (publishing or redelivering again starts a new round).
 * - The outbox relay's sends to SQS: relayBackoffMs, a short curve (an SQS hiccup passes in seconds).
 * - Analytics collection of a failing account: analyticsBackoffUntil, a long curve (15 min up to a day), or the
 *   platform's own Retry-After.
 */

/** Attempts at most: a job's receives, and a publication or event delivery's attempts per round (CONTRACT §4). */
export const MAX_ATTEMPTS = 8;

/**
 * Delay before attempt `attempt + 1` (jobs and deliveries alike): 5 s, 15 s, 45 s, … capped at 15 min, ±20 %
 * jitter, so the first three attempts fall within 90 s of the first failure.
 */
export function retryDelaySeconds(attempt: number, random = Math.random()): number {
  const base = Math.min(5 * 3 ** Math.max(0, attempt - 1), 900);
  return Math.max(1, Math.round(base * (0.8 + 0.4 * random)));
}

/** The outbox relay's retries of a failed send: 1 s, 2 s, 4 s … capped at 5 min, jittered down to half. */
export function relayBackoffMs(attempts: number, random = Math.random()): number {
  const base = Math.min(1000 * 2 ** Math.max(0, attempts - 1), 300_000);
  return Math.round(base * (0.5 + random / 2));
}

export const ANALYTICS_BACKOFF_BASE_MS = 15 * 60_000;
export const ANALYTICS_BACKOFF_CAP_MS = 86_400_000;
/** A platform's Retry-After is believed up to a week: a later date is more likely a broken header. */
export const RETRY_AFTER_CAP_MS = 7 * 86_400_000;

/** An account's collection delay after its `failures`-th failure in a row (1: 15 min, 2: 30 min, … at most a day). */
export const analyticsBackoffMs = (failures: number) =>
  Math.min(ANALYTICS_BACKOFF_BASE_MS * 2 ** Math.min(Math.max(0, failures - 1), 30), ANALYTICS_BACKOFF_CAP_MS);

/** Not before this: the platform's time when it named one in the future (within a week), else our curve. */
export function analyticsBackoffUntil(failures: number, now: Date, retryAt?: Date): Date {
  const t = now.getTime();
  if (retryAt && retryAt.getTime() > t) return new Date(Math.min(retryAt.getTime(), t + RETRY_AFTER_CAP_MS));
  return new Date(t + analyticsBackoffMs(failures));
}

/** Whether an account is still backing off at `now` (null: it is not failing). */
export const isBackingOff = (until: Date | null | undefined, now: Date) => until != null && until.getTime() > now.getTime();

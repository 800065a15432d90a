/**
 * When a failed account's collection may be tried again. Pure: no clock of its own, no I/O.
 *
 * Our own backoff doubles from 15 minutes up to a day. A platform that says when to come back
 * (Retry-After, a rate-limit reset) is believed, within a week: a later date is more likely a broken
 * header than a real instruction, and a week still respects it.
 */

export const BACKOFF_BASE_MS = 15 * 60_000;
export const BACKOFF_CAP_MS = 86_400_000;
export const RETRY_AFTER_CAP_MS = 7 * 86_400_000;

/** The delay after the `failures`-th failure in a row (1: 15 min, 2: 30 min, … at most a day). */
export const failureBackoffMs = (failures: number) => Math.min(BACKOFF_BASE_MS * 2 ** Math.min(Math.max(0, failures - 1), 30), BACKOFF_CAP_MS);

/** Not before this: the platform's time when it named one in the future, else our backoff for `failures`. */
export function backoffUntil(failures: number, now: Date, retryAt?: Date): Date {
  const t = now.getTime();
  if (retryAt && retryAt.getTime() > t) return new Date(Math.min(retryAt.getTime(), t + RETRY_AFTER_CAP_MS));
  return new Date(t + failureBackoffMs(failures));
}

/** Whether an account is still backing off at `now` (null: it is not failing). */
export const isBackingOff = (until: Date | null | undefined, now: Date) => until != null && until.getTime() > now.getTime();

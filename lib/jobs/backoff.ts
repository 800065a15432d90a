/**
 * Delay before attempt `attempt + 1` (CONTRACT §4, for jobs and deliveries alike): 5 s, 15 s, 45 s, … capped at
 * 15 min, ±20 % jitter, so the first three attempts fall within 90 s of the first failure. Pure: no SQS, no clock.
 */
export function retryDelaySeconds(attempt: number, random = Math.random()): number {
  const base = Math.min(5 * 3 ** Math.max(0, attempt - 1), 900);
  return Math.max(1, Math.round(base * (0.8 + 0.4 * random)));
}

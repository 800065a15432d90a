/** Day arithmetic and series for the overview: plain functions over plain data. */

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` (UTC) of an instant. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The calendar days (UTC) a range of `days` × 24 h ending at `now` touches, oldest first: from the day of
 * its start to today, so `days + 1` of them (content published 6.9 days ago is on the first).
 */
export function dayList(now: Date, days: number): string[] {
  const out: string[] = [];
  for (let i = days; i >= 0; i--) out.push(dayOf(now.getTime() - i * DAY_MS));
  return out;
}

/**
 * A daily series over `days`: each day's last value, carried forward over days without one; days before
 * the first known value (and without a baseline) are left out rather than shown as zero.
 */
export function fillSeries(days: string[], points: Map<string, number>, baseline: number | undefined): { date: string; value: number }[] {
  const out: { date: string; value: number }[] = [];
  let current = baseline;
  for (const date of days) {
    const v = points.get(date);
    if (v !== undefined) current = v;
    if (current !== undefined) out.push({ date, value: current });
  }
  return out;
}

/** Sum several accounts' series by day: a day counts only accounts with a value that day. */
export function sumSeries(series: { date: string; value: number }[][], days: string[]): { date: string; value: number }[] {
  const totals = new Map<string, number>();
  for (const s of series) for (const p of s) totals.set(p.date, (totals.get(p.date) ?? 0) + p.value);
  return days.filter((d) => totals.has(d)).map((date) => ({ date, value: totals.get(date)! }));
}

/** Change over a series: last value minus the baseline (or the first value when there is no baseline). */
export function seriesDelta(series: { value: number }[], baseline: number | undefined): number | null {
  if (series.length === 0) return null;
  return series[series.length - 1].value - (baseline ?? series[0].value);
}

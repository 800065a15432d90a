/** Small helpers every benchmark prints with. */
export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i];
}

export interface Timing {
  p50: number;
  p99: number;
  mean: number;
  perSecond: number;
  n: number;
}

/** Run `fn` `n` times (after `warmup` unmeasured runs) with `concurrency` in flight; latency in ms. */
export async function measure(fn: () => Promise<unknown>, opts: { n: number; warmup?: number; concurrency?: number }): Promise<Timing> {
  for (let i = 0; i < (opts.warmup ?? 5); i++) await fn();
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next++ < opts.n) {
      const t0 = performance.now();
      await fn();
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 1 }, worker));
  const elapsed = performance.now() - started;
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    perSecond: (times.length / elapsed) * 1000,
    n: times.length,
  };
}

export const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

export function printTable(rows: Record<string, string | number>[]): void {
  console.table(rows);
}

/** A one-line progress bar on stderr. */
export function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}`);
  if (done >= total) process.stderr.write("\n");
}

import type { Database } from "../db/client";
import { errorFields, logEvent } from "../log";
import { bounds, type SweepOptions } from "./batch";
import { sweepBookkeeping } from "./bookkeeping";
import { sweepHistory } from "./history";
import { sweepMeasurements } from "./measurements";
import { foldProviderCosts } from "./provider-costs";

export type { SweepOptions } from "./batch";

/** Rows removed (or folded) per table by one run; a sweep that failed is missing and logged. */
export type RetentionReport = Record<string, number>;

/**
 * One retention run over every history table (periods in lib/retention/periods.ts), each sweep bounded by
 * `options`. Sweeps are independent: one that fails is logged and the others still run; the next run catches up.
 */
export async function runRetention(db: Database, options: SweepOptions = {}): Promise<RetentionReport> {
  const opts = bounds(options);
  const report: RetentionReport = {};
  const sweeps: [string, () => Promise<Record<string, number> | number>][] = [
    ["bookkeeping", () => sweepBookkeeping(db, opts)],
    ["history", () => sweepHistory(db, opts)],
    ["analyticsMeasurements", () => sweepMeasurements(db, opts)],
    ["providerCostEvents", () => foldProviderCosts(db, opts)],
  ];
  for (const [name, sweep] of sweeps) {
    try {
      const result = await sweep();
      if (typeof result === "number") report[name] = result;
      else Object.assign(report, result);
    } catch (err) {
      logEvent("error", "retention sweep failed", { sweep: name, ...errorFields(err) });
    }
  }
  return report;
}

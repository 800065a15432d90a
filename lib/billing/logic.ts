/**
 * Billing rules as plain functions (no HTTP, no database): billing periods, usage against limits and when
 * access is restricted (CONTRACT.md §8).
 */
import { LIMIT_NAMES, type LimitName, type Limits, type Usage } from "./plans";

export const DAY_MS = 24 * 60 * 60 * 1000;
/** A subscription past due for longer than this restricts access. */
export const PAST_DUE_GRACE_MS = 7 * DAY_MS;

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** The anchor's day and time of day, `months` calendar months later (clamped to the month's last day). */
export function addMonths(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const year = y + Math.floor(m / 12);
  const month = ((m % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

/** Which monthly anniversary of `anchor` (0 = the anchor itself) the period containing `now` starts at. */
function periodIndex(now: Date, anchor: Date): number {
  let months = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  while (months > 0 && addMonths(anchor, months).getTime() > now.getTime()) months--;
  return months;
}

const usesCalendar = (now: Date, anchor?: Date | null): anchor is null | undefined => !anchor || anchor.getTime() > now.getTime();

/**
 * The start of the monthly usage period that contains `now`: the latest monthly anniversary of `anchor`
 * (a subscription's start) not after `now`; without an anchor (or with one in the future), the first instant
 * of the calendar month (UTC).
 */
export function periodStart(now: Date, anchor?: Date | null): Date {
  if (usesCalendar(now, anchor)) return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return addMonths(anchor as Date, periodIndex(now, anchor as Date));
}

/** The end (exclusive) of that period: the next anniversary, or the next calendar month. */
export function periodEnd(now: Date, anchor?: Date | null): Date {
  if (usesCalendar(now, anchor)) return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return addMonths(anchor as Date, periodIndex(now, anchor as Date) + 1);
}

/** An empty usage map (every limit name at 0). */
export const zeroUsage = (): Usage => Object.fromEntries(LIMIT_NAMES.map((n) => [n, 0])) as Usage;

/** The limit names whose usage is over the limit (equal is not over). */
export function overLimits(limits: Limits, usage: Partial<Usage>): LimitName[] {
  return LIMIT_NAMES.filter((name) => limits[name] !== undefined && (usage[name] ?? 0) > limits[name]!);
}

export interface RestrictionInput {
  limits: Limits;
  usage: Partial<Usage>;
  status: string;
  pastDueSince: Date | null;
  now: Date;
}

/** True when usage is over a limit or the subscription has been past due for more than 7 days. */
export function accessRestricted(input: RestrictionInput): boolean {
  if (overLimits(input.limits, input.usage).length > 0) return true;
  return input.status === "past_due" && input.pastDueSince !== null && input.now.getTime() - input.pastDueSince.getTime() > PAST_DUE_GRACE_MS;
}

export interface LimitBreach {
  limit: LimitName;
  /** The plan's limit. */
  allowed: number;
  /** Usage now, before the refused addition. */
  usage: number;
}

/**
 * Whether adding `adding` to `name` stays within the plan: null when it does (or the plan has no such limit),
 * else what would be breached. `adding: 0` asks whether the limit is already used up (a budget).
 */
export function checkAddition(limits: Limits, usage: Partial<Usage>, name: LimitName, adding: number): LimitBreach | null {
  const allowed = limits[name];
  if (allowed === undefined) return null;
  const current = usage[name] ?? 0;
  const fits = adding === 0 ? current < allowed : current + adding <= allowed;
  return fits ? null : { limit: name, allowed, usage: current };
}

export interface CostRow {
  provider: string;
  operation: string;
  status: string;
  events: number;
  units: number;
  cost: number;
}

interface CostFigures {
  cost_microusd: number;
  event_count: number;
  units: number;
  reserved_cost_microusd: number;
  reserved_event_count: number;
  reserved_units: number;
}

const emptyFigures = (): CostFigures => ({ cost_microusd: 0, event_count: 0, units: 0, reserved_cost_microusd: 0, reserved_event_count: 0, reserved_units: 0 });

function addRow(into: CostFigures, row: CostRow): void {
  if (row.status === "reserved") {
    into.reserved_cost_microusd += row.cost;
    into.reserved_event_count += row.events;
    into.reserved_units += row.units;
  } else {
    into.cost_microusd += row.cost;
    into.event_count += row.events;
    into.units += row.units;
  }
}

/** Ledger rows (committed and reserved) folded into SPEC 2.9 ProviderCost figures, one per provider. */
export function foldProviderCosts(rows: CostRow[], opts: { periodStart: string; budgetMicrousd: number | null }) {
  const byProvider = new Map<string, { totals: CostFigures; operations: Map<string, CostFigures> }>();
  for (const row of rows) {
    let entry = byProvider.get(row.provider);
    if (!entry) byProvider.set(row.provider, (entry = { totals: emptyFigures(), operations: new Map() }));
    addRow(entry.totals, row);
    let op = entry.operations.get(row.operation);
    if (!op) entry.operations.set(row.operation, (op = emptyFigures()));
    addRow(op, row);
  }
  return [...byProvider.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([provider, { totals, operations }]) => ({
      provider,
      currency: "USD",
      period_start: opts.periodStart,
      pricing_source_url: null,
      budget_microusd: opts.budgetMicrousd,
      ...totals,
      operations: [...operations.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([operation, figures]) => ({ operation, ...figures })),
    }));
}

/**
 * Plans as data (CONTRACT.md §8): prices in minor units of `currency`, a trial length and limits by name.
 * `pro` starts with a 14-day trial that needs no payment; `team` is paid from the start (a hosted checkout).
 * `self_hosted` is the plan of every organization while billing is off: no limits, nothing to buy.
 */
export const LIMIT_NAMES = [
  "publications_per_month",
  "social_accounts",
  "workspaces",
  "members",
  "storage_bytes",
  "builds_per_month",
  "ai_budget_microusd",
] as const;

export type LimitName = (typeof LIMIT_NAMES)[number];
export type Limits = Partial<Record<LimitName, number>>;
export type Usage = Record<LimitName, number>;
export type Interval = "month" | "year";

export interface Plan {
  id: string;
  name: string;
  /** Whether a person can choose it in a purchase choice. */
  purchasable: boolean;
  currency: string;
  price_minor: Record<Interval, number>;
  trial_days: number;
  limits: Limits;
}

const GiB = 1024 ** 3;

export const PLANS: readonly Plan[] = [
  {
    id: "free",
    name: "Free",
    purchasable: true,
    currency: "usd",
    price_minor: { month: 0, year: 0 },
    trial_days: 0,
    limits: {
      publications_per_month: 30,
      social_accounts: 3,
      workspaces: 1,
      members: 2,
      storage_bytes: 1 * GiB,
      builds_per_month: 10,
      ai_budget_microusd: 1_000_000,
    },
  },
  {
    id: "pro",
    name: "Pro",
    purchasable: true,
    currency: "usd",
    price_minor: { month: 1900, year: 19000 },
    trial_days: 14,
    limits: {
      publications_per_month: 500,
      social_accounts: 15,
      workspaces: 3,
      members: 5,
      storage_bytes: 25 * GiB,
      builds_per_month: 200,
      ai_budget_microusd: 20_000_000,
    },
  },
  {
    id: "team",
    name: "Team",
    purchasable: true,
    currency: "usd",
    price_minor: { month: 4900, year: 49000 },
    trial_days: 0,
    limits: {
      publications_per_month: 5000,
      social_accounts: 60,
      workspaces: 20,
      members: 50,
      storage_bytes: 250 * GiB,
      builds_per_month: 2000,
      ai_budget_microusd: 100_000_000,
    },
  },
  {
    id: "self_hosted",
    name: "Self-hosted",
    purchasable: false,
    currency: "usd",
    price_minor: { month: 0, year: 0 },
    trial_days: 0,
    limits: {},
  },
];

const BY_ID = new Map(PLANS.map((p) => [p.id, p]));

export const findPlan = (id: string): Plan | undefined => BY_ID.get(id);

export function planOrThrow(id: string): Plan {
  const plan = BY_ID.get(id);
  if (!plan) throw new Error(`unknown plan ${id}`);
  return plan;
}

/** The plan of an organization without a subscription. */
export const defaultPlanId = (billingEnabled: boolean) => (billingEnabled ? "free" : "self_hosted");

/** Whether buying this plan for this interval needs money now (a paid plan without a trial). */
export const paymentRequiredNow = (plan: Plan, interval: Interval) => plan.price_minor[interval] > 0 && plan.trial_days === 0;

import { inArray } from "drizzle-orm";
import { analyticsCoverage } from "../../db/schema";
import type { Queryable } from "../db/client";
import { collectableAccounts } from "./accounts";
import { isBackingOff } from "../jobs/retry-policy";

/**
 * What a manual refresh (POST /analytics/refresh) may queue: every collectable account except those still
 * backing off after a failure (our backoff, or the platform's Retry-After), which are named with when they
 * may be tried again. Asking again does not shorten anyone's wait.
 */

export interface DeferredAccount {
  accountId: string;
  platform: string;
  failureCode: string | null;
  retryAt: Date;
}

export interface RefreshPlan {
  eligible: Awaited<ReturnType<typeof collectableAccounts>>;
  deferred: DeferredAccount[];
}

export async function planRefresh(q: Queryable, workspaceId: string, now: Date): Promise<RefreshPlan> {
  const accounts = await collectableAccounts(q, workspaceId);
  const coverage = accounts.length
    ? await q
        .select({ accountId: analyticsCoverage.accountId, backoffUntil: analyticsCoverage.backoffUntil, failureCode: analyticsCoverage.failureCode })
        .from(analyticsCoverage)
        .where(
          inArray(
            analyticsCoverage.accountId,
            accounts.map((a) => a.id),
          ),
        )
    : [];
  const byAccount = new Map(coverage.map((c) => [c.accountId, c]));
  const plan: RefreshPlan = { eligible: [], deferred: [] };
  for (const a of accounts) {
    const c = byAccount.get(a.id);
    if (c?.backoffUntil && isBackingOff(c.backoffUntil, now))
      plan.deferred.push({ accountId: a.id, platform: a.platform, failureCode: c.failureCode, retryAt: c.backoffUntil });
    else plan.eligible.push(a);
  }
  return plan;
}

/** The earliest time any deferred account may be tried again (null: none is deferred). */
export const earliestRetry = (deferred: DeferredAccount[]) =>
  deferred.reduce<Date | null>((min, d) => (min === null || d.retryAt < min ? d.retryAt : min), null);

import { and, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { analyticsCollectionRuns, analyticsCoverage, renditions, renditionSegments, socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { accountContext } from "../providers/account-context";
import { ProviderError, type AccountContext } from "../providers/types";
import { READ_BUDGET, type BackfillState, type CollectResult } from "./collect";
import { collectBluesky } from "./collect-bluesky";
import { collectMastodon } from "./collect-mastodon";
import { platformSupport } from "./overview";
import { insertMeasurements, refreshRollups, upsertContentItems, type MeasurementInput } from "./store";

/** Collected accounts are refreshed this often; sooner while discovery of older posts is still going on. */
export const REFRESH_EVERY_MS = 6 * 3_600_000;
export const BACKFILL_EVERY_MS = 15 * 60_000;

/** After a failure: 15 min, 30 min, 1 h … capped at a day, unless the provider said when to come back. */
export const failureBackoffMs = (failures: number) => Math.min(15 * 60_000 * 2 ** Math.max(0, failures - 1), 86_400_000);

export type Collector = (account: AccountContext, state: BackfillState, budget: number) => Promise<CollectResult>;
const COLLECTORS: Record<string, { collect: Collector; budget: number }> = {
  mastodon: { collect: collectMastodon, budget: READ_BUDGET.mastodon },
  bluesky: { collect: collectBluesky, budget: READ_BUDGET.bluesky },
};

/** Mastodon answers 403 to a token without the scope a read needs ("outside the authorized scopes"). */
const failureCode = (err: ProviderError) =>
  (err.info.kind === "rate_limited" ? "rate_limited" : err.info.httpStatus === 403 ? "missing_scope" : err.info.code).slice(0, 100);

/**
 * One account's collection: read from its provider, store posts and measurements, update its coverage.
 * A provider failure is recorded on this account's coverage only (with when to try again) and never
 * thrown, so other accounts' jobs are unaffected; what was read before a failure is kept.
 */
export async function collectAccount(q: Queryable, env: Env, accountId: string, now = new Date()): Promise<"collected" | "failed" | "unsupported" | "gone"> {
  const [account] = await q
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.id, accountId), isNull(socialAccounts.disconnectedAt)))
    .limit(1);
  if (!account || !account.isActive) return "gone";
  const [existing] = await q.select().from(analyticsCoverage).where(eq(analyticsCoverage.accountId, accountId)).limit(1);
  const coverage = existing ?? (await q.insert(analyticsCoverage).values({ accountId, workspaceId: account.workspaceId }).returning())[0];
  const collector = COLLECTORS[account.platform];
  if (!collector || !platformSupport(account.platform).content) {
    await q
      .update(analyticsCoverage)
      .set({
        status: "unsupported",
        description: `${account.platform} accounts offer no analytics`,
        lastAttemptedAt: now,
        nextEligibleAt: null,
        updatedAt: now,
      })
      .where(eq(analyticsCoverage.accountId, accountId));
    return "unsupported";
  }

  let result: CollectResult;
  try {
    result = await collector.collect(
      await accountContext(env, account),
      { cursor: coverage.backfillCursor, done: coverage.initialCompletedAt !== null },
      collector.budget,
    );
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    await recordFailure(q, accountId, coverage.consecutiveFailures, err, now, { status: "failed" });
    return "failed";
  }

  const created = await store(q, account.workspaceId, accountId, result, now);
  const watermark =
    result.oldestSeen && (!coverage.backfillWatermark || result.oldestSeen < coverage.backfillWatermark) ? result.oldestSeen : coverage.backfillWatermark;
  const initialDone = coverage.initialCompletedAt ?? (result.backfill.done ? now : null);
  const progress = {
    status: initialDone ? ("complete" as const) : ("backfilling" as const),
    description: initialDone ? null : "Discovering older posts over several runs",
    initialItemsDiscovered: coverage.initialCompletedAt ? coverage.initialItemsDiscovered : coverage.initialItemsDiscovered + created,
    backfillWatermark: watermark,
    backfillCursor: result.backfill.cursor,
    initialCompletedAt: initialDone,
  };
  if (result.error) {
    await recordFailure(q, accountId, coverage.consecutiveFailures, result.error, now, progress);
    return "failed";
  }
  await q
    .update(analyticsCoverage)
    .set({
      ...progress,
      failureCode: null,
      failureMessage: null,
      consecutiveFailures: 0,
      lastAttemptedAt: now,
      lastSuccessAt: now,
      nextEligibleAt: new Date(now.getTime() + (initialDone ? REFRESH_EVERY_MS : BACKFILL_EVERY_MS)),
      updatedAt: now,
    })
    .where(eq(analyticsCoverage.accountId, accountId));
  return "collected";
}

async function recordFailure(
  q: Queryable,
  accountId: string,
  failures: number,
  err: ProviderError,
  now: Date,
  fields: Partial<typeof analyticsCoverage.$inferInsert>,
) {
  const retryAt = err.info.retryAt && err.info.retryAt.getTime() > now.getTime() ? err.info.retryAt : new Date(now.getTime() + failureBackoffMs(failures + 1));
  await q
    .update(analyticsCoverage)
    .set({
      ...fields,
      failureCode: failureCode(err),
      failureMessage: err.message.slice(0, 500),
      consecutiveFailures: failures + 1,
      lastAttemptedAt: now,
      nextEligibleAt: retryAt,
      updatedAt: now,
    })
    .where(eq(analyticsCoverage.accountId, accountId));
}

/** Store what was read: posts Herald published are `native` and linked to their rendition; the rest `external`. */
async function store(q: Queryable, workspaceId: string, accountId: string, result: CollectResult, now: Date): Promise<number> {
  const ids = [...new Set(result.posts.map((p) => p.externalId))];
  const published = ids.length
    ? await q
        .select({ id: renditions.id, publicationId: renditions.publicationId, externalId: renditions.externalId })
        .from(renditions)
        .where(and(eq(renditions.socialAccountId, accountId), inArray(renditions.externalId, ids)))
    : [];
  // Later posts of a thread Herald published belong to their rendition's first post, which is counted already.
  const threadTails = ids.length
    ? await q
        .select({ externalId: renditionSegments.externalId })
        .from(renditionSegments)
        .innerJoin(renditions, eq(renditions.id, renditionSegments.renditionId))
        .where(and(eq(renditions.socialAccountId, accountId), inArray(renditionSegments.externalId, ids), gt(renditionSegments.position, 0)))
    : [];
  const byExternal = new Map(published.map((r) => [r.externalId, r]));
  const skip = new Set(threadTails.map((t) => t.externalId));
  const posts = [...new Map(result.posts.filter((p) => !skip.has(p.externalId)).map((p) => [p.externalId, p])).values()];
  const saved = await upsertContentItems(
    q,
    posts.map((p) => {
      const r = byExternal.get(p.externalId);
      return {
        workspaceId,
        accountId,
        source: r ? ("native" as const) : ("external" as const),
        externalId: p.externalId,
        publishedAt: p.publishedAt,
        excerpt: p.excerpt,
        externalUrl: p.url,
        renditionId: r?.id ?? null,
        publicationId: r?.publicationId ?? null,
      };
    }),
    now,
  );
  const measurements: MeasurementInput[] = [
    ...result.account.map(({ source, ...reading }) => ({ workspaceId, accountId, contentItemId: null, reading, collectedAt: now, source })),
    ...posts.flatMap((p, i) =>
      p.readings.map(({ source, ...reading }) => ({ workspaceId, accountId, contentItemId: saved[i].id, reading, collectedAt: now, source })),
    ),
  ];
  await insertMeasurements(q, measurements);
  await refreshRollups(
    q,
    saved.map((s) => s.id),
  );
  return saved.filter((s) => s.created).length;
}

/** Count an account's job into its run; the last one completes the run (exactly once: the job's receipt shares this transaction). */
export async function countIntoRun(q: Queryable, runId: string, collected: number) {
  await q
    .update(analyticsCollectionRuns)
    .set({
      accountsCollected: sql`${analyticsCollectionRuns.accountsCollected} + ${collected}`,
      status: sql`case when ${analyticsCollectionRuns.accountsCollected} + ${collected} >= ${analyticsCollectionRuns.accountsQueued} then 'completed' else 'running' end`,
      completedAt: sql`case when ${analyticsCollectionRuns.accountsCollected} + ${collected} >= ${analyticsCollectionRuns.accountsQueued} then now() else null end`,
    })
    .where(eq(analyticsCollectionRuns.id, runId));
}

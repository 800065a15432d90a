import { and, eq, gt, inArray, isNull } from "drizzle-orm";
import { analyticsCoverage, renditions, renditionSegments, socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { errorFields, logEvent } from "../log";
import { accountContext } from "../accounts/account-context";
import { ProviderError, type AccountContext } from "../providers/types";
import { analyticsBackoffUntil, isBackingOff } from "../jobs/retry-policy";
import { READ_BUDGET, READ_TIMEOUT_MS, type BackfillState, type CollectLimits, type CollectResult } from "../providers/analytics/collect";
import { collectBluesky } from "../platforms/bluesky/analytics";
import { collectFacebook } from "../platforms/facebook/analytics";
import { collectInstagram } from "../platforms/instagram/analytics";
import { collectMastodon } from "../platforms/mastodon/analytics";
import { collectThreads } from "../platforms/threads/analytics";
import { collectTikTok } from "../platforms/tiktok/analytics";
import { collectX } from "../platforms/x/analytics";
import { collectYouTube } from "../platforms/youtube/analytics";
import { platformSupport } from "./overview";
import { insertMeasurements, refreshRollups, upsertContentItems, type MeasurementInput } from "./store";

/** Collected accounts are refreshed this often; sooner while discovery of older posts is still going on. */
export const REFRESH_EVERY_MS = 6 * 3_600_000;
export const BACKFILL_EVERY_MS = 15 * 60_000;

export type Collector = (account: AccountContext, state: BackfillState, limits: CollectLimits) => Promise<CollectResult>;
const COLLECTORS: Record<string, { collect: Collector; budget: number }> = {
  mastodon: { collect: collectMastodon, budget: READ_BUDGET.mastodon },
  bluesky: { collect: collectBluesky, budget: READ_BUDGET.bluesky },
  x: { collect: collectX, budget: READ_BUDGET.x },
  threads: { collect: collectThreads, budget: READ_BUDGET.threads },
  youtube: { collect: collectYouTube, budget: READ_BUDGET.youtube },
  facebook: { collect: collectFacebook, budget: READ_BUDGET.facebook },
  instagram: { collect: collectInstagram, budget: READ_BUDGET.instagram },
  tiktok: { collect: collectTikTok, budget: READ_BUDGET.tiktok },
};

type Coverage = typeof analyticsCoverage.$inferSelect;

/** Mastodon answers 403 to a token without the scope a read needs ("outside the authorized scopes"). */
const failureCode = (err: ProviderError) =>
  (err.info.kind === "rate_limited" ? "rate_limited" : err.info.httpStatus === 403 ? "missing_scope" : err.info.code).slice(0, 100);

/** Anything else a read throws is a bug of ours meeting an answer we did not foresee: recorded all the same, not retried at once. */
function asProviderError(err: unknown, accountId: string): ProviderError {
  if (err instanceof ProviderError) return err;
  logEvent("error", "analytics collection failed unexpectedly", { account_id: accountId, ...errorFields(err) });
  return new ProviderError("Herald could not read the provider's answer.", { kind: "unknown", code: "unreadable_answer", retryable: true });
}

export type CollectOutcome = "collected" | "failed" | "deferred" | "unsupported" | "gone";

export interface CollectOptions {
  now?: Date;
  /** Per read (tests use a short one against a provider that hangs). */
  timeoutMs?: number;
}

/**
 * One account's collection: read from its provider, then store posts and measurements and update its
 * coverage. The provider is called with no transaction open (callers pass the database); what was read is
 * stored in one short transaction after. A failure of any kind while reading (an error answer, a 429, a
 * timeout, a malformed answer) is recorded on this account's coverage with when it may be tried again, and
 * never thrown, so no job loops on it and other accounts are unaffected; what was read before it is kept.
 * An account still backing off is not called at all ("deferred"), whoever queued it.
 */
export async function collectAccount(q: Queryable, env: Env, accountId: string, opts: CollectOptions = {}): Promise<CollectOutcome> {
  const now = opts.now ?? new Date();
  const [account] = await q
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.id, accountId), isNull(socialAccounts.disconnectedAt)))
    .limit(1);
  if (!account?.isActive) return "gone";
  await q.insert(analyticsCoverage).values({ accountId, workspaceId: account.workspaceId }).onConflictDoNothing();
  const [coverage] = await q.select().from(analyticsCoverage).where(eq(analyticsCoverage.accountId, accountId)).limit(1);
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
  if (isBackingOff(coverage.backoffUntil, now)) return "deferred";

  let result: CollectResult;
  try {
    result = await collector.collect(
      await accountContext(env, account, q),
      { cursor: coverage.backfillCursor, done: coverage.initialCompletedAt !== null },
      { budget: collector.budget, timeoutMs: opts.timeoutMs ?? READ_TIMEOUT_MS },
    );
  } catch (err) {
    await recordFailure(q, coverage, asProviderError(err, accountId), now, { status: "failed" });
    return "failed";
  }

  try {
    return await q.transaction((tx) => saveCollection(tx, account.workspaceId, accountId, result, now));
  } catch (err) {
    // Something the checks let through that the database refuses: recorded like a bad answer, not retried at once.
    logEvent("error", "analytics collection could not be stored", { account_id: accountId, ...errorFields(err) });
    const refused = new ProviderError("The provider's answer could not be stored.", { kind: "unknown", code: "store_refused", retryable: true });
    await recordFailure(q, coverage, refused, now, { status: "failed" });
    return "failed";
  }
}

/** What was read, stored, and the coverage moved on, in one transaction (the coverage row locked meanwhile). */
async function saveCollection(q: Queryable, workspaceId: string, accountId: string, result: CollectResult, now: Date): Promise<CollectOutcome> {
  const [coverage] = await q.select().from(analyticsCoverage).where(eq(analyticsCoverage.accountId, accountId)).for("update");
  const created = await store(q, workspaceId, accountId, result, now);
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
    await recordFailure(q, coverage, result.error, now, progress);
    return "failed";
  }
  await q
    .update(analyticsCoverage)
    .set({
      ...progress,
      failureCode: null,
      failureMessage: null,
      consecutiveFailures: 0,
      backoffUntil: null,
      lastAttemptedAt: now,
      lastSuccessAt: now,
      nextEligibleAt: new Date(now.getTime() + (initialDone ? REFRESH_EVERY_MS : BACKFILL_EVERY_MS)),
      updatedAt: now,
    })
    .where(eq(analyticsCoverage.accountId, accountId));
  return "collected";
}

/** The failure on the account's coverage, and its backoff: nobody collects it again before `backoff_until`. */
async function recordFailure(q: Queryable, coverage: Coverage, err: ProviderError, now: Date, fields: Partial<typeof analyticsCoverage.$inferInsert>) {
  const failures = coverage.consecutiveFailures + 1;
  const until = analyticsBackoffUntil(failures, now, err.info.retryAt);
  logEvent("warn", "analytics collection failed", { account_id: coverage.accountId, code: failureCode(err), failures });
  await q
    .update(analyticsCoverage)
    .set({
      ...fields,
      failureCode: failureCode(err),
      failureMessage: err.message.slice(0, 500),
      consecutiveFailures: failures,
      lastAttemptedAt: now,
      backoffUntil: until,
      nextEligibleAt: until,
      updatedAt: now,
    })
    .where(eq(analyticsCoverage.accountId, coverage.accountId));
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

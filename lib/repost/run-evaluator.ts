import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import { analyticsContentItems, renditions, repostActivity, repostAttempts, repostGrants, repostPolicies, socialAccounts } from "../../db/schema";
import type { RepostPolicyRule } from "../../db/schema/repost";
import type { Database, Queryable } from "../db/client";
import { databaseNow } from "../db/clock";
import { newId, randomText } from "../ids";
import type { RepostJobPayload } from "../jobs/kinds";
import { enqueueJob } from "../jobs/outbox";
import { decide, type StageState } from "./evaluate";

/** Bounds on one run: policies per page, posts per policy (newest first), and the time a run may take. */
export const POLICY_PAGE = 100;
export const MAX_POSTS_PER_POLICY = 200;
export const RUN_BUDGET_MS = 40_000;

const HOUR = 3_600_000;

type Policy = typeof repostPolicies.$inferSelect;

/**
 * One evaluator pass: for every enabled policy, the published renditions of its source accounts that may
 * still need a stage, decided by `decide` from stored measurements. Each due stage is a repost_attempts
 * row inserted with ON CONFLICT DO NOTHING on (rendition, policy, target, stage) in the same transaction
 * as its outbox job: evaluators running at once queue it once. Returns the job ids written.
 *
 * Policies are read in pages by id, starting at a random id and wrapping around, until every one was seen
 * or the run's time budget is spent: a run that cannot finish leaves different policies for the next one
 * rather than always the same.
 */
export async function evaluateRepostPolicies(db: Database, opts: { now?: Date; workspaceId?: string; budgetMs?: number } = {}): Promise<string[]> {
  const now = opts.now ?? (await databaseNow(db));
  // The run's own time budget: this Worker's wall time, not a decision about stored times.
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  const start = `rpp_${randomText(24)}`;
  const jobs: string[] = [];
  for (const range of [gt(repostPolicies.id, start), lte(repostPolicies.id, start)]) {
    let after: string | null = null;
    for (;;) {
      const page = await db
        .select()
        .from(repostPolicies)
        .where(
          and(
            eq(repostPolicies.enabled, true),
            range,
            after ? gt(repostPolicies.id, after) : undefined,
            opts.workspaceId ? eq(repostPolicies.workspaceId, opts.workspaceId) : undefined,
          ),
        )
        .orderBy(asc(repostPolicies.id))
        .limit(POLICY_PAGE);
      for (const policy of page) {
        if (Date.now() > deadline) return jobs;
        jobs.push(...(await evaluatePolicy(db, policy, now)));
      }
      if (page.length < POLICY_PAGE) break;
      after = page[page.length - 1].id;
    }
  }
  return jobs;
}

/** Targets still usable: connected, and the policy's own workspace's or granted to it. */
async function usableTargets(q: Queryable, policy: Policy) {
  if (policy.targetAccountIds.length === 0) return [];
  return q
    .select({ id: socialAccounts.id, platform: socialAccounts.platform })
    .from(socialAccounts)
    .where(
      and(
        inArray(socialAccounts.id, policy.targetAccountIds),
        isNull(socialAccounts.disconnectedAt),
        or(
          eq(socialAccounts.workspaceId, policy.workspaceId),
          sql`exists (select 1 from ${repostGrants} g where g.target_account_id = ${socialAccounts.id} and g.source_workspace_id = ${policy.workspaceId})`,
        ),
      ),
    );
}

/** Published posts of the policy's own source accounts young enough for some stage still to come. */
async function candidatePosts(q: Queryable, policy: Policy, now: Date) {
  const rule = policy.rule;
  const horizon = rule.window_hours * HOUR + rule.stages.reduce((s, st) => s + st.delay_minutes * 60_000, 0) + 24 * HOUR;
  return q
    .select({ id: renditions.id, accountId: renditions.socialAccountId, platform: renditions.platform, publishedAt: renditions.publishedAt })
    .from(renditions)
    .where(
      and(
        inArray(renditions.socialAccountId, policy.sourceAccountIds),
        eq(renditions.workspaceId, policy.workspaceId),
        eq(renditions.status, "published"),
        isNotNull(renditions.externalId),
        gte(renditions.publishedAt, new Date(now.getTime() - horizon)),
      ),
    )
    .orderBy(desc(renditions.publishedAt))
    .limit(MAX_POSTS_PER_POLICY);
}

/** Engagement totals at the last `checks` collections of each post, oldest first. */
async function engagementHistory(q: Queryable, renditionIds: string[], checks: number): Promise<Map<string, number[]>> {
  const rows = (
    await q.execute<{ rendition_id: string; total: number }>(sql`
      select i.rendition_id, h.total from ${analyticsContentItems} i
      cross join lateral (
        select m.collected_at, sum(m.value)::float8 as total from analytics_measurements m
        where m.content_item_id = i.id and m.metric in ('likes', 'reposts', 'replies') and m.value is not null
        group by m.collected_at order by m.collected_at desc limit ${checks}
      ) h
      where i.rendition_id in (${sql.join(
        renditionIds.map((id) => sql`${id}`),
        sql`, `,
      )})
      order by i.rendition_id, h.collected_at asc`)
  ).rows;
  const out = new Map<string, number[]>();
  for (const r of rows) out.set(r.rendition_id, [...(out.get(r.rendition_id) ?? []), Number(r.total)]);
  return out;
}

async function evaluatePolicy(db: Database, policy: Policy, now: Date): Promise<string[]> {
  if (policy.sourceAccountIds.length === 0) return [];
  const [targets, posts] = await Promise.all([usableTargets(db, policy), candidatePosts(db, policy, now)]);
  if (targets.length === 0 || posts.length === 0) return [];
  const ids = posts.map((p) => p.id);
  const rule: RepostPolicyRule = policy.rule;
  const [items, attempts, history] = await Promise.all([
    db
      .select({ renditionId: analyticsContentItems.renditionId, latest: analyticsContentItems.latestMetrics })
      .from(analyticsContentItems)
      .where(inArray(analyticsContentItems.renditionId, ids)),
    db
      .select({
        renditionId: repostAttempts.renditionId,
        target: repostAttempts.targetAccountId,
        stage: repostAttempts.stage,
        status: repostAttempts.status,
        completedAt: repostAttempts.completedAt,
      })
      .from(repostAttempts)
      .where(and(eq(repostAttempts.policyId, policy.id), inArray(repostAttempts.renditionId, ids))),
    rule.plateau ? engagementHistory(db, ids, rule.plateau.checks) : Promise.resolve(new Map<string, number[]>()),
  ]);
  const latest = new Map(items.map((i) => [i.renditionId!, i.latest]));
  const stagesOf = new Map<string, StageState[]>();
  for (const a of attempts) {
    const key = `${a.renditionId}|${a.target}`;
    stagesOf.set(key, [...(stagesOf.get(key) ?? []), { stage: a.stage, status: a.status, completedAtMs: a.completedAt?.getTime() ?? null }]);
  }

  const due: (typeof repostAttempts.$inferInsert)[] = [];
  for (const post of posts) {
    for (const target of targets) {
      // A repost stays on its own network, and an account does not repost itself.
      if (target.platform !== post.platform || target.id === post.accountId) continue;
      const decision = decide(
        rule,
        { publishedAtMs: post.publishedAt!.getTime(), latest: latest.get(post.id) ?? {}, engagementHistory: history.get(post.id) ?? [] },
        stagesOf.get(`${post.id}|${target.id}`) ?? [],
        now.getTime(),
      );
      if (decision.kind !== "repost") continue;
      due.push({
        id: newId("rpt"),
        workspaceId: policy.workspaceId,
        policyId: policy.id,
        renditionId: post.id,
        targetAccountId: target.id,
        stage: decision.stage,
        unrepostPrevious: decision.unrepostPrevious,
        reason: decision.reason.slice(0, 1000),
      });
    }
  }
  if (due.length === 0) return [];
  return db.transaction(async (tx) => {
    // The unique key decides who queues: a row another evaluator inserted first is not returned here.
    const inserted = await tx.insert(repostAttempts).values(due).onConflictDoNothing().returning();
    const jobs: string[] = [];
    for (const a of inserted) {
      jobs.push(await enqueueJob(tx, "repost.execute", a.workspaceId, { attempt_id: a.id } satisfies RepostJobPayload));
    }
    if (inserted.length) {
      await tx.insert(repostActivity).values(
        inserted.map((a) => ({
          id: newId("rpa"),
          workspaceId: a.workspaceId,
          policyId: a.policyId,
          renditionId: a.renditionId,
          targetAccountId: a.targetAccountId,
          stage: a.stage,
          action: "repost" as const,
          status: "queued" as const,
          reason: a.reason,
        })),
      );
    }
    return jobs;
  });
}

import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { repostActivity, repostAttempts, repostGrants, repostPolicies, socialAccounts } from "../../db/schema";
import type { RepostRuleData } from "../../db/schema/repost";
import type { Database, Queryable } from "../db/client";
import { databaseNow } from "../db/clock";
import { newId } from "../ids";
import type { RepostJobPayload } from "../jobs/kinds";
import { enqueueJob } from "../jobs/outbox";
import { activityOf } from "./activity";
import { type Candidate, candidateSlice, saveCursor, workspacesInTurn } from "./candidates";
import { decide, horizonMs, type StageState } from "./evaluate";
import { factsKey, type FactsRequest, nativeFacts } from "./facts";

export { RENDITIONS_PER_WORKSPACE } from "./candidates";

/** The time a run may take; the workspaces it could not reach are first in line for the next run. */
export const RUN_BUDGET_MS = 40_000;
/** Enabled policies read per workspace (GET /repost-automation shows as many). */
const MAX_POLICIES = 200;

type Policy = typeof repostPolicies.$inferSelect;
/** A rule that applies to a post: a policy's, or (policyId null) its publication's own. */
interface Applicable {
  policyId: string | null;
  rule: RepostRuleData;
  targetIds: string[];
}

/**
 * One evaluator pass. Workspaces are taken least recently evaluated first, and each gets a bounded slice of
 * its published renditions (lib/repost/candidates.ts), so a workspace with thousands of posts due delays
 * nobody else: every workspace is reached within a run unless the run's time budget ends first, and then
 * the ones left go first next time. For each post the rules that apply (its publication's `repost_override`:
 * inherit → the policies naming its account, custom → its own rule and targets, off → none) are decided by
 * `decide` from native measurements. Each due stage is a repost_attempts row inserted with ON CONFLICT DO
 * NOTHING in the same transaction as its outbox job: evaluators running at once queue it once. Returns the
 * job ids written. `workspaceIds` limits the run to those workspaces (tests, and evaluating one on demand).
 */
export async function evaluateRepostPolicies(db: Database, opts: { now?: Date; workspaceIds?: string[]; budgetMs?: number } = {}): Promise<string[]> {
  const now = opts.now ?? (await databaseNow(db));
  // The run's own time budget: this Worker's wall time, not a decision about stored times.
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  const jobs: string[] = [];
  for (const workspaceId of await workspacesInTurn(db, opts.workspaceIds)) {
    jobs.push(...(await evaluateWorkspace(db, workspaceId, now)));
    // Checked after the workspace, so every run makes progress.
    if (Date.now() > deadline) break;
  }
  return jobs;
}

async function evaluateWorkspace(db: Database, workspaceId: string, now: Date): Promise<string[]> {
  const policies = await db
    .select()
    .from(repostPolicies)
    .where(and(eq(repostPolicies.workspaceId, workspaceId), eq(repostPolicies.enabled, true)))
    .orderBy(asc(repostPolicies.createdAt), asc(repostPolicies.id))
    .limit(MAX_POLICIES);
  const { rows, next } = await candidateSlice(db, workspaceId, {
    sourceAccountIds: [...new Set(policies.flatMap((p) => p.sourceAccountIds))],
    policyHorizonMs: Math.max(0, ...policies.map((p) => horizonMs(p.rule))),
    now,
  });
  const due = await dueAttempts(db, workspaceId, policies, rows, now);
  return db.transaction(async (tx) => {
    // The unique keys decide who queues: a row another evaluator inserted first is not returned here.
    const inserted = due.length ? await tx.insert(repostAttempts).values(due).onConflictDoNothing().returning() : [];
    const jobs: string[] = [];
    for (const a of inserted) jobs.push(await enqueueJob(tx, "repost.execute", a.workspaceId, { attempt_id: a.id } satisfies RepostJobPayload));
    if (inserted.length) await tx.insert(repostActivity).values(inserted.map((a) => activityOf(a, "repost", "queued", a.reason)));
    await saveCursor(tx, workspaceId, next);
    return jobs;
  });
}

function rulesFor(post: Candidate, policies: Policy[]): Applicable[] {
  const override = post.override;
  if (override?.mode === "off") return [];
  if (override?.mode === "custom") return override.rule ? [{ policyId: null, rule: override.rule, targetIds: override.target_account_ids }] : [];
  return policies.filter((p) => p.sourceAccountIds.includes(post.accountId)).map((p) => ({ policyId: p.id, rule: p.rule, targetIds: p.targetAccountIds }));
}

/** Targets still usable by the workspace: connected, and its own or granted to it. */
async function usableTargets(q: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: socialAccounts.id, platform: socialAccounts.platform })
    .from(socialAccounts)
    .where(
      and(
        inArray(socialAccounts.id, ids),
        isNull(socialAccounts.disconnectedAt),
        or(
          eq(socialAccounts.workspaceId, workspaceId),
          sql`exists (select 1 from ${repostGrants} g where g.target_account_id = ${socialAccounts.id} and g.source_workspace_id = ${workspaceId})`,
        ),
      ),
    );
  return new Map(rows.map((r) => [r.id, r.platform]));
}

const stageKey = (renditionId: string, policyId: string | null, targetId: string) => `${renditionId}|${policyId ?? ""}|${targetId}`;

async function dueAttempts(q: Queryable, workspaceId: string, policies: Policy[], posts: Candidate[], now: Date) {
  const usable = await usableTargets(q, workspaceId, [...new Set(posts.flatMap((p) => rulesFor(p, policies).flatMap((a) => a.targetIds)))]);
  // Each (post, rule) with the targets it may use: a repost stays on its own network, and an account does not repost itself.
  const work = posts.flatMap((post) =>
    rulesFor(post, policies)
      .map((applicable) => ({
        post,
        applicable,
        targets: applicable.targetIds.filter((t) => usable.get(t) === post.platform && t !== post.accountId),
      }))
      .filter((w) => w.targets.length > 0 && w.post.publishedAt),
  );
  if (work.length === 0) return [];
  const request = (w: (typeof work)[number]): FactsRequest => ({
    renditionId: w.post.id,
    publishedAtMs: w.post.publishedAt!.getTime(),
    windowSeconds: w.applicable.rule.evaluation_window_seconds,
    plateauChecks: w.applicable.rule.require_plateau ? w.applicable.rule.plateau_checks : 0,
  });
  const ids = [...new Set(work.map((w) => w.post.id))];
  const [facts, attempts] = await Promise.all([
    nativeFacts(q, work.map(request)),
    q
      .select({
        renditionId: repostAttempts.renditionId,
        policyId: repostAttempts.policyId,
        target: repostAttempts.targetAccountId,
        stage: repostAttempts.stage,
        status: repostAttempts.status,
        completedAt: repostAttempts.completedAt,
      })
      .from(repostAttempts)
      .where(inArray(repostAttempts.renditionId, ids)),
  ]);
  const stagesOf = new Map<string, StageState[]>();
  for (const a of attempts) {
    const key = stageKey(a.renditionId, a.policyId, a.target);
    stagesOf.set(key, [...(stagesOf.get(key) ?? []), { stage: a.stage, status: a.status, completedAtMs: a.completedAt?.getTime() ?? null }]);
  }
  const due: (typeof repostAttempts.$inferInsert)[] = [];
  for (const w of work) {
    const postFacts = facts.get(factsKey(request(w)))!;
    for (const target of w.targets) {
      const decision = decide(w.applicable.rule, postFacts, stagesOf.get(stageKey(w.post.id, w.applicable.policyId, target)) ?? [], now.getTime());
      if (decision.kind !== "repost") continue;
      due.push({
        id: newId("rpt"),
        workspaceId,
        policyId: w.applicable.policyId,
        renditionId: w.post.id,
        targetAccountId: target,
        stage: decision.stage,
        unrepostPrevious: decision.unrepostPrevious,
        reason: `${w.applicable.policyId ? "" : "publication's own rule, "}${decision.reason}`.slice(0, 1000),
      });
    }
  }
  return due;
}

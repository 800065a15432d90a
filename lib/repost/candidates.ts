import { and, asc, eq, gte, inArray, isNotNull, or, sql, type SQL } from "drizzle-orm";
import { publications, renditions, repostEvaluatorCursors } from "../../db/schema";
import type { Queryable } from "../db/client";
import { RULE_LIMITS } from "./limits";

/** Renditions one run examines per workspace at most: a workspace with thousands of posts due waits its turn, others do not. */
export const RENDITIONS_PER_WORKSPACE = 250;
/** Workspaces one run considers at most; those it cannot reach come first next run (least recently evaluated first). */
export const WORKSPACES_PER_RUN = 1_000;

/** The longest any rule can still act on a post (window + delay + every stage, and a day's slack). */
export const MAX_HORIZON_MS = (RULE_LIMITS.windowSeconds.max + RULE_LIMITS.maxDelaySeconds * (RULE_LIMITS.stages.max + 1)) * 1000 + 86_400_000;

/**
 * Workspaces with something to evaluate (an enabled policy, or a publication with its own rule), least
 * recently evaluated first: a run that cannot reach them all leaves the others first in line for the next.
 */
export async function workspacesInTurn(q: Queryable, only?: string[]): Promise<string[]> {
  if (only?.length === 0) return [];
  const { rows } = await q.execute<{ id: string }>(sql`
    select w.id from (
      select workspace_id as id from repost_policies where enabled
      union
      select workspace_id from ${publications} where ${publications.repostOverride} ->> 'mode' = 'custom'
    ) w
    left join ${repostEvaluatorCursors} c on c.workspace_id = w.id
    ${
      only
        ? sql`where w.id in (${sql.join(
            only.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``
    }
    order by c.evaluated_at asc nulls first, w.id
    limit ${WORKSPACES_PER_RUN}`);
  return rows.map((r) => r.id);
}

export type Candidate = Awaited<ReturnType<typeof candidateRows>>[number];

function candidateRows(q: Queryable, where: SQL | undefined, limit: number) {
  return q
    .select({
      id: renditions.id,
      accountId: renditions.socialAccountId,
      platform: renditions.platform,
      publishedAt: renditions.publishedAt,
      publicationId: renditions.publicationId,
      override: publications.repostOverride,
    })
    .from(renditions)
    .innerJoin(publications, eq(publications.id, renditions.publicationId))
    .where(where)
    .orderBy(asc(renditions.publishedAt), asc(renditions.id))
    .limit(limit);
}

/**
 * The next slice of the workspace's published renditions a rule may still act on, in publication order from
 * where the last run stopped, wrapping to the oldest: every one is examined within a few runs, however many
 * there are. Inherited posts count only from the policies' source accounts and within their horizon; posts
 * with their own rule within the longest horizon; `off` ones never. Returns the slice and where to go on.
 */
export async function candidateSlice(
  q: Queryable,
  workspaceId: string,
  scope: { sourceAccountIds: string[]; policyHorizonMs: number; now: Date },
  limit = RENDITIONS_PER_WORKSPACE,
): Promise<{ rows: Candidate[]; next: { publishedAt: Date; id: string } | null }> {
  const [cursor] = await q.select().from(repostEvaluatorCursors).where(eq(repostEvaluatorCursors.workspaceId, workspaceId));
  const mode = sql`coalesce(${publications.repostOverride} ->> 'mode', 'inherit')`;
  const base = and(
    eq(renditions.workspaceId, workspaceId),
    eq(renditions.status, "published"),
    isNotNull(renditions.externalId),
    gte(renditions.publishedAt, new Date(scope.now.getTime() - Math.max(scope.policyHorizonMs, MAX_HORIZON_MS))),
    or(
      scope.sourceAccountIds.length
        ? and(
            sql`${mode} = 'inherit'`,
            inArray(renditions.socialAccountId, scope.sourceAccountIds),
            gte(renditions.publishedAt, new Date(scope.now.getTime() - scope.policyHorizonMs)),
          )
        : undefined,
      and(sql`${mode} = 'custom'`, gte(renditions.publishedAt, new Date(scope.now.getTime() - MAX_HORIZON_MS))),
    ),
  );
  const at = cursor?.afterPublishedAt && cursor.afterRenditionId ? { publishedAt: cursor.afterPublishedAt, id: cursor.afterRenditionId } : null;
  const position = (p: { publishedAt: Date; id: string }) =>
    sql`(${renditions.publishedAt}, ${renditions.id})`.append(sql` > (${p.publishedAt.toISOString()}::timestamptz, ${p.id})`);
  const after = await candidateRows(q, at ? and(base, position(at)) : base, limit);
  if (after.length === limit || !at) return { rows: after, next: after.length === limit ? last(after) : null };
  // The end was reached: wrap around to the oldest, up to where this slice began.
  const wrapped = await candidateRows(q, and(base, sql`not ${position(at)}`), limit - after.length);
  const rows = [...after, ...wrapped];
  return { rows, next: wrapped.length === limit - after.length ? last(wrapped) : null };
}

const last = (rows: Candidate[]) => {
  const r = rows[rows.length - 1];
  return r.publishedAt ? { publishedAt: r.publishedAt, id: r.id } : null;
};

/** Records that the workspace was evaluated now, and where its next slice starts. */
export async function saveCursor(q: Queryable, workspaceId: string, next: { publishedAt: Date; id: string } | null): Promise<void> {
  // The statement's own clock: workspaces evaluated in one run keep the order they were evaluated in.
  const values = { evaluatedAt: sql`clock_timestamp()`, afterPublishedAt: next?.publishedAt ?? null, afterRenditionId: next?.id ?? null };
  await q
    .insert(repostEvaluatorCursors)
    .values({ workspaceId, ...values })
    .onConflictDoUpdate({ target: repostEvaluatorCursors.workspaceId, set: values });
}

import { and, asc, eq, exists, getTableColumns, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { auditEvents, deliveryAttempts, publications, renditions, renditionSegments, socialAccounts } from "../../db/schema";
import { BoundStatement, compileSql, compileStatement, placeholder, statementBuilder as q, type NoRow } from "../db/compiled";
import { insertWhere } from "../db/insert-where";
import { RENDITION_ERROR_CLEARED } from "./status";

/**
 * The statements every delivery runs, built once per isolate (lib/db/compiled.ts): building and mapping them
 * with drizzle on every rendition cost 0.8-1.2 ms of CPU per delivery (the two batches, measured apart).
 */
const p = placeholder;

/** What a delivery reads of its rendition. */
const claimed = {
  status: renditions.status,
  attemptCount: renditions.attemptCount,
  socialAccountId: renditions.socialAccountId,
  publicationId: renditions.publicationId,
  workspaceId: renditions.workspaceId,
  platform: renditions.platform,
  title: renditions.title,
  deliveryKey: renditions.deliveryKey,
};

/** What a delivery reads of each segment. */
const segmentFields = {
  position: renditionSegments.position,
  title: renditionSegments.title,
  titleOverride: renditionSegments.titleOverride,
  body: renditionSegments.body,
  bodyOverride: renditionSegments.bodyOverride,
  url: renditionSegments.url,
  urlOverride: renditionSegments.urlOverride,
  status: renditionSegments.status,
  externalId: renditionSegments.externalId,
  externalUrl: renditionSegments.externalUrl,
  externalCid: renditionSegments.externalCid,
};

type Row<F> = { [K in keyof F]: F[K] extends { _: { data: infer D; notNull: infer N } } ? (N extends true ? D : D | null) : unknown };

function compileAll() {
  /** The rendition carries this attempt's mark: the claim above it in the batch took it. */
  const claimedHere = and(eq(renditions.id, p("id")), eq(renditions.currentAttemptId, p("attemptId")));
  const accountColumns = getTableColumns(socialAccounts);
  return {
    /** Take the rendition unless another holds it or it is already done; returns it as it was. */
    claim: compileStatement<Row<typeof claimed>>(
      q
        .update(renditions)
        .set({ leaseUntil: p("leaseUntil"), currentAttemptId: p("attemptId") })
        .where(and(eq(renditions.id, p("id")), notInArray(renditions.status, ["published", "failed", "canceled", "pending"]), or(isNull(renditions.leaseUntil), lt(renditions.leaseUntil, sql`now()`))))
        .returning(claimed),
      claimed,
    ),
    start: compileStatement<NoRow>(
      q.update(renditions).set({ status: "publishing", attemptCount: sql`${renditions.attemptCount} + 1`, currentAttemptAt: sql`now()`, updatedAt: sql`now()` }).where(claimedHere),
      {},
    ),
    attempt: compileSql<NoRow>(
      insertWhere(
        deliveryAttempts,
        { id: p("attemptId"), renditionId: p("id"), number: sql`(select ${renditions.attemptCount} from ${renditions} where ${renditions.id} = ${p("id")})`, jobId: p("jobId") },
        exists(q.select({ one: sql`1` }).from(renditions).where(claimedHere)),
      ),
      {},
    ),
    account: compileStatement<typeof socialAccounts.$inferSelect>(
      q.select(accountColumns).from(socialAccounts).innerJoin(renditions, eq(renditions.socialAccountId, socialAccounts.id)).where(claimedHere),
      accountColumns as never,
    ),
    segments: compileStatement<Row<typeof segmentFields>>(
      q.select(segmentFields).from(renditionSegments).where(eq(renditionSegments.renditionId, p("id"))).orderBy(asc(renditionSegments.position)),
      segmentFields,
    ),
    publication: compileStatement<{ id: string; mediaIds: string[] }>(
      q.select({ id: publications.id, mediaIds: publications.mediaIds }).from(publications).innerJoin(renditions, eq(renditions.publicationId, publications.id)).where(claimedHere),
      { id: publications.id, mediaIds: publications.mediaIds },
    ),
    published: compileStatement<NoRow>(
      q
        .update(renditions)
        .set({
          status: "published",
          externalId: p("externalId"),
          externalUrl: p("externalUrl"),
          publishedAt: sql`now()`,
          leaseUntil: null,
          nextAttemptAt: null,
          ...RENDITION_ERROR_CLEARED,
          updatedAt: sql`now()`,
        })
        .where(eq(renditions.id, p("id"))),
      {},
    ),
    postedSegment: compileStatement<NoRow>(
      q
        .update(renditionSegments)
        .set({ status: "published", externalId: p("externalId"), externalUrl: p("externalUrl"), externalCid: p("externalCid"), errorKind: null, errorCode: null, errorMessage: null, errorHttpStatus: null, errorRetryAt: null, errorAction: null })
        .where(and(eq(renditionSegments.renditionId, p("id")), eq(renditionSegments.position, p("position")))),
      {},
    ),
    pendingSegmentsPublished: compileStatement<NoRow>(
      q.update(renditionSegments).set({ status: "published" }).where(and(eq(renditionSegments.renditionId, p("id")), eq(renditionSegments.status, "pending"))),
      {},
    ),
    attemptSucceeded: compileStatement<NoRow>(q.update(deliveryAttempts).set({ outcome: "succeeded", finishedAt: sql`now()` }).where(eq(deliveryAttempts.id, p("attemptId"))), {}),
    audit: compileStatement<NoRow>(
      q.insert(auditEvents).values({
        id: p("auditId"),
        actorUserId: null,
        actorKind: "system",
        workspaceId: p("workspaceId"),
        action: "rendition.publish",
        targetType: "rendition",
        targetId: p("id"),
        requestId: p("jobId"),
      }),
      {},
    ),
  };
}

let compiled: ReturnType<typeof compileAll> | undefined;
const statements = () => (compiled ??= compileAll());

/**
 * The claim, the attempt on record, and what the delivery reads, for one batch: each statement after the claim
 * applies only to a rendition that carries this attempt's mark.
 */
export function claimAndStart(ids: { id: string; attemptId: string; jobId: string }, leaseUntil: Date) {
  const s = statements();
  return [
    new BoundStatement(s.claim, { ...ids, leaseUntil }),
    new BoundStatement(s.start, ids),
    new BoundStatement(s.attempt, ids),
    new BoundStatement(s.account, ids),
    new BoundStatement(s.segments, ids),
    new BoundStatement(s.publication, ids),
  ] as const;
}

export type ClaimedRendition = Row<typeof claimed>;
export type DeliverySegment = Row<typeof segmentFields>;

/** A confirmed segment on record. */
export const postedSegment = (id: string, position: number, ref: { id: string; url: string | null; cid?: string }) =>
  new BoundStatement(statements().postedSegment, { id, position, externalId: ref.id, externalUrl: ref.url, externalCid: ref.cid ?? null });

/** The rendition published: its outcome, its segments, the attempt and the audit entry (with `extra` before the segments). */
export function publishedOutcome(ids: { id: string; attemptId: string; jobId: string; workspaceId: string; auditId: string }, external: { id: string | null; url: string | null }, extra: BoundStatement<NoRow>[]) {
  const s = statements();
  return [
    new BoundStatement(s.published, { id: ids.id, externalId: external.id, externalUrl: external.url }),
    ...extra,
    new BoundStatement(s.pendingSegmentsPublished, ids),
    new BoundStatement(s.attemptSucceeded, ids),
    new BoundStatement(s.audit, ids),
  ];
}

import { and, asc, eq, exists, getTableColumns, inArray, isNull, lte, ne, or, sql, type SQL } from "drizzle-orm";
import { auditEvents, deliveryAttempts, publications, renditions, renditionSegments, socialAccounts } from "../../db/schema";
import { inOneTransactionNamed } from "../db/batch";
import { BoundStatement, compileSql, compileStatement, placeholder, statementBuilder as q, type NoRow } from "../db/compiled";
import type { Database, Queryable } from "../db/client";
import { insertWhere } from "../db/insert-where";
import { byName } from "../events/emit";
import { accountReconnectRequiredStatements, renditionFailedStatements } from "../events/subjects";
import { newId } from "../ids";
import { RENDITION_ERROR_CLEARED } from "../publishing/status";
import { CLAIMABLE, LEASE_SECONDS, type FailureDecision, type FailureInfo } from "./rules";

/**
 * Everything a delivery reads and writes, in one place (the rules are ./rules.ts). The guarantee lives in one
 * condition: every write of an attempt carries `heldBy`, so it applies only while the rendition still carries
 * that attempt's id. A claim takes a rendition only when no live lease holds it; a delivery that lost its lease
 * and then wakes up writes nothing. Leases and retry times are the database's `now()` plus a duration.
 *
 * The statements of the hot path are compiled once per isolate (lib/db/compiled.ts: building them with
 * drizzle on every delivery cost 0.8-1.2 ms of CPU) and sent in batches whose results come back by name.
 */

const p = placeholder;
const leaseFromNow = sql`now() + make_interval(secs => ${sql.raw(String(LEASE_SECONDS))})`;
/** `now()` plus a number of seconds given as a parameter; null stays null (no next attempt). */
const secondsFromNow = (seconds: SQL | unknown) => sql`now() + ${seconds}::double precision * interval '1 second'`;

/** What a delivery reads of its rendition. */
const claimedFields = {
  status: renditions.status,
  attemptCount: renditions.attemptCount,
  attemptsBeforeRound: renditions.attemptsBeforeRound,
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
export type ClaimedRendition = Row<typeof claimedFields>;
export type DeliverySegment = Row<typeof segmentFields>;
export type AccountRow = typeof socialAccounts.$inferSelect;
type ClaimRead = AccountRow & { publicationId: string; mediaIds: string[] };

/** The rendition still carries this attempt's id: the fence on every write of a delivery. */
const heldBy = () =>
  exists(
    q
      .select({ one: sql`1` })
      .from(renditions)
      .where(and(eq(renditions.id, p("id")), eq(renditions.currentAttemptId, p("attemptId")))),
  );

function compileAll() {
  const accountColumns = getTableColumns(socialAccounts);
  const held = heldBy();
  const here = and(eq(renditions.id, p("id")), eq(renditions.currentAttemptId, p("attemptId")));
  return {
    /** Take the rendition for this attempt unless a live lease holds it or it is not in flight; answers it as it was. */
    /**
     * Take the rendition for this attempt and start it, unless a live lease holds it or it is not in flight; answers
     * it as it was before (its status says whether an earlier attempt may have reached the platform). One statement:
     * the row is locked first, and a claim that waited for another re-reads it and finds it held.
     */
    claim: compileSql<ClaimedRendition>(
      sql`with before as (
          select ${renditions.id} as id, ${renditions.status} as status, ${renditions.attemptCount} as attempt_count from ${renditions}
          where ${renditions.id} = ${p("id")} and ${inArray(renditions.status, CLAIMABLE)} and (${renditions.leaseUntil} is null or ${renditions.leaseUntil} < now())
          for update
        )
        update ${renditions} set lease_until = ${leaseFromNow}, current_attempt_id = ${p("attemptId")}, status = 'publishing',
          attempt_count = ${renditions.attemptCount} + 1, current_attempt_at = now(), updated_at = now()
        from before where ${renditions.id} = before.id
        returning before.status, before.attempt_count, ${renditions.attemptsBeforeRound}, ${renditions.workspaceId}, ${renditions.platform}, ${renditions.title}, ${renditions.deliveryKey}`,
      claimedFields,
    ),
    attempt: compileSql<NoRow>(
      insertWhere(
        deliveryAttempts,
        {
          id: p("attemptId"),
          renditionId: p("id"),
          number: sql`(select ${renditions.attemptCount} from ${renditions} where ${renditions.id} = ${p("id")})`,
          jobId: p("jobId"),
        },
        held,
      ),
      {},
    ),
    /** The destination account and the publication's media, as the delivery needs them. */
    read: compileStatement<ClaimRead>(
      q
        .select({ ...accountColumns, publicationId: publications.id, mediaIds: publications.mediaIds })
        .from(renditions)
        .innerJoin(socialAccounts, eq(socialAccounts.id, renditions.socialAccountId))
        .innerJoin(publications, eq(publications.id, renditions.publicationId))
        .where(here),
      { ...accountColumns, publicationId: publications.id, mediaIds: publications.mediaIds } as Record<keyof ClaimRead, unknown>,
    ),
    segments: compileStatement<DeliverySegment>(
      q
        .select(segmentFields)
        .from(renditionSegments)
        .where(and(eq(renditionSegments.renditionId, p("id")), held))
        .orderBy(asc(renditionSegments.position)),
      segmentFields,
    ),
    reconciled: compileStatement<NoRow>(q.update(renditions).set({ lastReconciledAt: sql`now()` }).where(here), {}),
    renew: compileStatement<{ id: string }>(q.update(renditions).set({ leaseUntil: leaseFromNow }).where(here).returning({ id: renditions.id }), {
      id: renditions.id,
    }),
    posted: compileStatement<NoRow>(
      q
        .update(renditionSegments)
        .set({
          status: "published",
          externalId: p("externalId"),
          externalUrl: p("externalUrl"),
          externalCid: p("externalCid"),
          errorKind: null,
          errorCode: null,
          errorMessage: null,
          errorHttpStatus: null,
          errorRetryAt: null,
          errorAction: null,
        })
        .where(and(eq(renditionSegments.renditionId, p("id")), eq(renditionSegments.position, p("position")), held)),
      {},
    ),
    published: compileStatement<{ id: string }>(
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
          terminalReason: null,
          updatedAt: sql`now()`,
        })
        .where(and(here, ne(renditions.status, "published")))
        .returning({ id: renditions.id }),
      { id: renditions.id },
    ),
    restPublished: compileStatement<NoRow>(
      q
        .update(renditionSegments)
        .set({ status: "published" })
        .where(and(eq(renditionSegments.renditionId, p("id")), eq(renditionSegments.status, "pending"), held)),
      {},
    ),
    attemptSucceeded: compileStatement<NoRow>(
      q
        .update(deliveryAttempts)
        .set({ outcome: "succeeded", finishedAt: sql`now()` })
        .where(and(eq(deliveryAttempts.id, p("attemptId")), isNull(deliveryAttempts.finishedAt), held)),
      {},
    ),
    audit: compileSql<NoRow>(
      insertWhere(
        auditEvents,
        {
          id: p("auditId"),
          actorUserId: null,
          actorKind: "system",
          workspaceId: p("workspaceId"),
          action: "rendition.publish",
          targetType: "rendition",
          targetId: p("id"),
          requestId: p("jobId"),
        },
        held,
      ),
      {},
    ),
  };
}

let compiled: ReturnType<typeof compileAll> | undefined;
const statements = () => (compiled ??= compileAll());

/** One attempt's identity: every write below is fenced by it. */
export type AttemptIds = {
  id: string;
  attemptId: string;
  jobId: string;
};

/** A rendition claimed for one attempt with what its delivery reads; `rendition` is undefined when it was not taken. */
export interface Claim extends AttemptIds {
  rendition: ClaimedRendition | undefined;
  account: AccountRow | undefined;
  segments: DeliverySegment[];
  publication: { id: string; mediaIds: string[] } | undefined;
}

/**
 * Claim renditions, each for an attempt of its own, put the attempts on record and read what each delivery
 * needs: one request. Callers claim only what they start at once (no lease runs while a rendition waits), in
 * position order, so two jobs never wait on each other in a cycle.
 */
export async function claimRenditions(db: Database, renditionIds: readonly string[], jobId: string): Promise<Claim[]> {
  const s = statements();
  const ids = renditionIds.map((id) => ({ id, attemptId: newId("att"), jobId }));
  const results = await inOneTransactionNamed(db, () =>
    ids.map((i) => ({
      claim: new BoundStatement(s.claim, i),
      attempt: new BoundStatement(s.attempt, i),
      read: new BoundStatement(s.read, i),
      segments: new BoundStatement(s.segments, i),
    })),
  );
  return ids.map((i, n) => {
    const {
      claim: [rendition],
      read: [read],
      segments,
    } = results[n];
    if (!read) return { ...i, rendition, account: undefined, segments, publication: undefined };
    const { publicationId, mediaIds, ...account } = read;
    return { ...i, rendition, account, segments, publication: { id: publicationId, mediaIds } };
  });
}

/** Renew the lease; false when another attempt holds the rendition now (this one must stop). */
export async function renewLease(db: Database, ids: AttemptIds): Promise<boolean> {
  const [{ renewed }] = await inOneTransactionNamed(db, () => [{ renewed: new BoundStatement(statements().renew, ids) }]);
  return renewed.length > 0;
}

/** The platform was asked what an earlier attempt posted (Delivery.last_reconciled_at). */
export async function recordReconciled(db: Database, ids: AttemptIds): Promise<void> {
  await inOneTransactionNamed(db, () => [{ reconciled: new BoundStatement(statements().reconciled, ids) }]);
}

export interface PostedRef {
  id: string;
  url: string | null;
  cid?: string;
}

const postedStatement = (ids: AttemptIds, position: number, ref: PostedRef) =>
  new BoundStatement(statements().posted, { ...ids, position, externalId: ref.id, externalUrl: ref.url, externalCid: ref.cid ?? null });

/** A confirmed segment on record with the lease renewed, before anything else is sent; false when the lease was lost. */
export async function recordPosted(db: Database, ids: AttemptIds, position: number, ref: PostedRef): Promise<boolean> {
  const [{ renewed }] = await inOneTransactionNamed(db, () => [
    { renewed: new BoundStatement(statements().renew, ids), posted: postedStatement(ids, position, ref) },
  ]);
  return renewed.length > 0;
}

/**
 * The published outcome as one group of statements (a job commits the groups of deliveries that end together in
 * one request): the rendition, the last confirmed segment when given, the rest of its segments, the attempt, the
 * audit entry. `published` answers the rendition's id when this attempt still held it.
 */
export function publishedGroup(
  ids: AttemptIds & { workspaceId: string },
  external: { id: string | null; url: string | null },
  lastPosted?: { position: number; ref: PostedRef },
) {
  const s = statements();
  return {
    published: new BoundStatement(s.published, { ...ids, externalId: external.id, externalUrl: external.url }),
    ...(lastPosted ? { lastPosted: postedStatement(ids, lastPosted.position, lastPosted.ref) } : {}),
    restPublished: new BoundStatement(s.restPublished, ids),
    attemptSucceeded: new BoundStatement(s.attemptSucceeded, ids),
    audit: new BoundStatement(s.audit, { ...ids, auditId: newId("aud") }),
  };
}
export type PublishedGroup = ReturnType<typeof publishedGroup>;

export interface FailureRecord {
  decision: FailureDecision;
  info: Pick<FailureInfo, "kind" | "retryable" | "outcomeUnknown">;
  message: string;
  httpStatus?: number | null;
  /** The segment the attempt stopped at, which carries the error too. */
  failedPosition?: number;
  /** A segment confirmed just before the failure, not yet on record. */
  lastPosted?: { position: number; ref: PostedRef };
  /**
   * The OAuth account whose credentials the platform refused: marked `reconnect_required` with the failure (and
   * `account.reconnect_required` emitted), so it shows what to do and nothing more is sent to it until reconnected.
   */
  reconnectAccountId?: string;
}

/**
 * A failed attempt (or one that may not run, or a stalled one) on record: the rendition's state and error, the
 * segment that failed, the attempt. Fenced, and never over a published outcome (committed, its answer lost).
 * True when it applied.
 */
export async function recordFailure(db: Database, ids: AttemptIds, f: FailureRecord): Promise<"recorded" | "published" | "lost"> {
  const { decision } = f;
  const retryAt = decision.retryInSeconds === null ? null : secondsFromNow(decision.retryInSeconds);
  const error = {
    errorKind: f.info.kind,
    errorCode: decision.errorCode,
    errorMessage: f.message.slice(0, 500),
    errorHttpStatus: f.httpStatus ?? null,
    errorRetryAt: retryAt,
    errorAction: decision.errorAction,
  };
  const here = and(eq(renditions.id, ids.id), eq(renditions.currentAttemptId, ids.attemptId));
  const stillHeld = exists(
    q
      .select({ one: sql`1` })
      .from(renditions)
      .where(and(here, ne(renditions.status, "published"))),
  );
  const [{ recorded, after }] = await inOneTransactionNamed(db, (tx) => [
    {
      recorded: tx
        .update(renditions)
        .set({
          ...error,
          status: decision.status,
          errorRetryable: f.info.retryable,
          recoveryAction: decision.recoveryAction,
          terminalReason: decision.terminalReason,
          nextAttemptAt: retryAt,
          leaseUntil: null,
          updatedAt: sql`now()`,
        })
        .where(and(here, ne(renditions.status, "published")))
        .returning({ id: renditions.id }),
      // A segment posted before the failure is on record all the same, so it is never posted again.
      ...(f.lastPosted ? { lastPosted: postedStatement(ids, f.lastPosted.position, f.lastPosted.ref) } : {}),
      ...(f.failedPosition !== undefined
        ? {
            failedSegment: tx
              .update(renditionSegments)
              .set({ ...error, status: decision.status === "failed" ? "failed" : "pending" })
              .where(
                and(
                  eq(renditionSegments.renditionId, ids.id),
                  eq(renditionSegments.position, f.failedPosition),
                  ne(renditionSegments.status, "published"),
                  stillHeld,
                ),
              ),
          }
        : {}),
      attempt: tx
        .update(deliveryAttempts)
        .set({ outcome: f.info.outcomeUnknown ? "unknown" : "failed", errorCode: decision.errorCode, finishedAt: sql`now()` })
        .where(and(eq(deliveryAttempts.id, ids.attemptId), isNull(deliveryAttempts.finishedAt))),
      ...(f.reconnectAccountId
        ? {
            reconnect: tx
              .update(socialAccounts)
              .set({ status: "reconnect_required", updatedAt: sql`now()` })
              .where(and(eq(socialAccounts.id, f.reconnectAccountId), eq(socialAccounts.status, "active"), isNull(socialAccounts.disconnectedAt), stillHeld)),
            ...byName("account_reconnect", accountReconnectRequiredStatements(f.reconnectAccountId)),
          }
        : {}),
      after: tx.select({ status: renditions.status }).from(renditions).where(here),
      // Its outbound event when this ends the rendition (lib/events): written only if the update above applied.
      ...(decision.status === "failed" ? byName("rendition_failed", renditionFailedStatements(ids.id)) : {}),
    },
  ]);
  if (recorded.length > 0) return "recorded";
  // Not recorded: this attempt's own published outcome committed (its answer was lost), or another attempt holds it.
  return after[0]?.status === "published" ? "published" : "lost";
}

/** The renditions a job delivers: in flight and due, in position order (a statement, to go with the job's receipt check). */
export const dueRenditions = (db: Queryable, publicationId: string) =>
  db
    .select({ id: renditions.id })
    .from(renditions)
    .where(
      and(
        eq(renditions.publicationId, publicationId),
        inArray(renditions.status, CLAIMABLE),
        or(isNull(renditions.nextAttemptAt), lte(renditions.nextAttemptAt, sql`now()`)),
      ),
    )
    .orderBy(renditions.position);
export type DueRenditions = Awaited<ReturnType<typeof dueRenditions>>;

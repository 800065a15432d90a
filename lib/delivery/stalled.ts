import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { outboxJobs, publications, renditions } from "../../db/schema";
import type { RenditionStatus } from "../../db/schema/publications";
import { inOneTransaction } from "../db/batch";
import type { Database } from "../db/client";
import { renditionFailedStatements } from "../events/subjects";
import { outboxRow } from "../jobs/outbox";
import { CLAIMABLE, decideStalled, RESWEEP_AFTER_SECONDS, STALLED_AFTER_SECONDS, type FailureDecision } from "./rules";
import { settleLocked } from "./settle";

/**
 * Deliveries that stopped (CONTRACT §9: nothing stays publishing): renditions nobody holds any more are taken up
 * again by a new job, or ended. Each end is fenced like a delivery's own writes: it applies only to the rendition
 * exactly as read.
 */

const IN_FLIGHT_STATUSES = sql.raw(CLAIMABLE.map((s) => `'${s}'`).join(", "));
/** In flight, not held by a live lease, and due (or its lease lapsed) at least `seconds` ago. */
const stalledFor = (seconds: number) => sql`${renditions.status} in (${IN_FLIGHT_STATUSES})
  and (${renditions.leaseUntil} is null or ${renditions.leaseUntil} < now())
  and greatest(coalesce(${renditions.nextAttemptAt}, ${renditions.updatedAt}), coalesce(${renditions.leaseUntil}, ${renditions.updatedAt})) < now() - make_interval(secs => ${seconds})`;

/** Renditions a sweep looks at per run; the rest wait for the next minute. */
const SWEEP_LIMIT = 200;
/** A rendition stalled this long is ended: with the lease and the sweep's minute, well inside 15 minutes. */
export const END_STALLED_AFTER_SECONDS = 11 * 60;

/**
 * Every minute (the publication scheduler runs it): renditions whose delivery stopped without anybody taking
 * them up again (a job dead-lettered or lost, a Worker killed) get a new job once their lease has lapsed for a
 * while; those still stalled well before CONTRACT §9's 15 minutes end `failed` (`retry`, or `outcome-unknown`
 * when the stopped attempt may have reached the platform), and their publications settle. Returns the jobs queued.
 */
export async function sweepStalledDeliveries(db: Database): Promise<string[]> {
  // Each ended rendition is fenced like any write of a delivery: it must still carry the attempt id read here.
  const ending = await db
    .select({ id: renditions.id, status: renditions.status, attemptId: renditions.currentAttemptId, publicationId: renditions.publicationId })
    .from(renditions)
    .where(stalledFor(END_STALLED_AFTER_SECONDS))
    .limit(SWEEP_LIMIT);
  for (const r of ending) await endStalled(db, r, decideStalled(r));
  for (const publicationId of new Set(ending.map((r) => r.publicationId))) await settleLocked(db, publicationId);

  return db.transaction(async (tx) => {
    const stalled = await tx
      .selectDistinct({ publicationId: renditions.publicationId, workspaceId: renditions.workspaceId })
      .from(renditions)
      .innerJoin(publications, eq(publications.id, renditions.publicationId))
      .where(
        and(
          stalledFor(STALLED_AFTER_SECONDS),
          eq(publications.status, "publishing"),
          or(isNull(publications.lastSweptAt), lt(publications.lastSweptAt, sql`now() - make_interval(secs => ${RESWEEP_AFTER_SECONDS})`)),
        ),
      )
      .limit(SWEEP_LIMIT);
    if (stalled.length === 0) return [];
    const jobs = stalled.map((s) => outboxRow("publication.publish", s.workspaceId, { publication_id: s.publicationId }));
    await tx.insert(outboxJobs).values(jobs);
    await tx
      .update(publications)
      .set({ lastSweptAt: sql`now()` })
      .where(
        inArray(
          publications.id,
          stalled.map((s) => s.publicationId),
        ),
      );
    return jobs.map((j) => j.id);
  });
}

/** A rendition ended by Herald rather than by a delivery's answer (it stopped, or its job was given up). */
const endedByHerald = (decision: FailureDecision, message: string) => ({
  status: decision.status,
  errorKind: "unknown",
  errorCode: decision.errorCode,
  errorMessage: message,
  errorHttpStatus: null,
  errorRetryable: false,
  errorRetryAt: null,
  errorAction: decision.errorAction,
  recoveryAction: decision.recoveryAction,
  terminalReason: decision.terminalReason,
  nextAttemptAt: null,
  leaseUntil: null,
  updatedAt: sql`now()`,
});

/** Still exactly as read (status and attempt id): a delivery that took it up meanwhile wins. */
const unchangedSince = (r: { id: string; attemptId: string | null; status: RenditionStatus }) =>
  and(
    eq(renditions.id, r.id),
    eq(renditions.status, r.status),
    r.attemptId === null ? isNull(renditions.currentAttemptId) : eq(renditions.currentAttemptId, r.attemptId),
  );

async function endStalled(db: Database, r: { id: string; attemptId: string | null; status: RenditionStatus }, decision: FailureDecision): Promise<void> {
  await inOneTransaction(db, (q) => [
    q
      .update(renditions)
      .set(endedByHerald(decision, "Herald's delivery of this rendition stopped and was not taken up again."))
      .where(and(unchangedSince(r), stalledFor(END_STALLED_AFTER_SECONDS))),
    // Its outbound event (lib/events), written only if the update applied.
    ...(decision.status === "failed" ? renditionFailedStatements(r.id) : []),
  ]);
}

/** Renditions of a publication whose job was given up (dead-lettered): each not held by a live lease ends now. */
export async function endUnheldRenditions(db: Database, publicationId: string): Promise<void> {
  const notHeld = or(isNull(renditions.leaseUntil), lt(renditions.leaseUntil, sql`now()`));
  const rows = await db
    .select({ id: renditions.id, status: renditions.status, attemptId: renditions.currentAttemptId })
    .from(renditions)
    .where(and(eq(renditions.publicationId, publicationId), inArray(renditions.status, CLAIMABLE), notHeld));
  for (const r of rows) {
    const decision = decideStalled(r);
    await inOneTransaction(db, (q) => [
      q
        .update(renditions)
        .set(endedByHerald(decision, "Herald gave up on this publication's delivery job."))
        .where(and(unchangedSince(r), notHeld)),
      // Its outbound event (lib/events), written only if the update applied.
      ...(decision.status === "failed" ? renditionFailedStatements(r.id) : []),
    ]);
  }
  await settleLocked(db, publicationId);
}

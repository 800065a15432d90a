import { and, eq, lte, sql, type SQL } from "drizzle-orm";
import { publications } from "../../db/schema";
import type { PublicationStatus } from "../../db/schema/publications";
import type { Database, Queryable } from "../db/client";
import { DomainError } from "../errors";
import { runInOrder } from "../events/emit";
import { publicationConvergedStatements } from "../events/subjects";
import { audit } from "../audit";
import type { PublicationRow } from "./load";
import { startPublishing } from "./start";

/** When a scheduled publication actually runs: its time plus a random delay of up to `randomDelayMinutes`. */
export function drawRunAt(scheduledAt: Date | null, randomDelayMinutes: number, random = Math.random()): Date | null {
  if (!scheduledAt) return null;
  return new Date(scheduledAt.getTime() + Math.floor(random * (randomDelayMinutes * 60_000 + 1)));
}

/**
 * The run time to store for a schedule: the drawn time, or the database's `now()` when `scheduledAt` has
 * already passed by the database's clock (CONTRACT §9: a time in the past publishes at once; the scheduler
 * starts it on its next run). Compared in SQL so the Worker's clock decides nothing.
 */
export function runAtFor(scheduledAt: Date, randomDelayMinutes: number, random = Math.random()): SQL {
  const drawn = drawRunAt(scheduledAt, randomDelayMinutes, random)!;
  return sql`case when ${scheduledAt.toISOString()}::timestamptz <= now() then now() else ${drawn.toISOString()}::timestamptz end`;
}

/** A new publication's time more than a minute before the database's clock is almost certainly a mistake: 422. */
export async function assertFutureSchedule(q: Queryable, scheduledAt: Date | null): Promise<void> {
  if (!scheduledAt) return;
  const result = await q.execute(sql`select ${scheduledAt.toISOString()}::timestamptz < now() - interval '1 minute' as past`);
  if ((result.rows[0] as { past?: boolean } | undefined)?.past) {
    throw new DomainError("validation-error", "scheduled_at is in the past; publish now instead, or pick a future time.", {
      errors: [{ location: "body.scheduled_at", message: "Must not be in the past", value: scheduledAt.toISOString() }],
    });
  }
}

export interface ScheduleEdit {
  /** The body's `scheduled_at`: absent keeps the schedule, null drops it. */
  scheduledAt: Date | null | undefined;
  randomDelayMinutes: number | undefined;
}

/**
 * Where an edit leaves a publication's schedule (CONTRACT §9). A scheduled publication stays scheduled unless
 * the body sets `scheduled_at: null`, even when its time has passed and its random delay has not (it then
 * runs when it was drawn to); a time given in the past makes it due at once. Without a schedule a publication
 * is a draft, except a partially published one, which stays so (some of it is out) and keeps its history.
 */
export function scheduleAfterEdit(
  row: Pick<PublicationRow, "status" | "scheduledAt" | "runAt" | "calendarAt" | "randomDelayMinutes">,
  edit: ScheduleEdit,
  random = Math.random(),
) {
  const delay = edit.randomDelayMinutes ?? row.randomDelayMinutes;
  const at = edit.scheduledAt === undefined ? (row.status === "scheduled" ? row.scheduledAt : null) : edit.scheduledAt;
  if (at) {
    const kept = row.status === "scheduled" && edit.scheduledAt === undefined && edit.randomDelayMinutes === undefined && row.runAt !== null;
    return {
      status: "scheduled" as PublicationStatus,
      scheduledAt: at,
      randomDelayMinutes: delay,
      runAt: kept ? row.runAt : runAtFor(at, delay, random),
      calendarAt: at,
    };
  }
  if (row.status === "partially_published") {
    return {
      status: row.status,
      scheduledAt: edit.scheduledAt === null ? null : row.scheduledAt,
      randomDelayMinutes: delay,
      runAt: null,
      calendarAt: row.calendarAt,
    };
  }
  return { status: "draft" as PublicationStatus, scheduledAt: null, randomDelayMinutes: delay, runAt: null, calendarAt: null };
}

/**
 * Start every scheduled publication whose run time (scheduled_at plus its drawn random delay) has
 * come. Rows are locked with SKIP LOCKED, so schedulers running at once never start one twice.
 * Returns the jobs written to the outbox.
 */
export async function startDuePublications(db: Database, limit = 100): Promise<string[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(publications)
      .where(and(eq(publications.status, "scheduled"), lte(publications.runAt, sql`now()`)))
      .orderBy(publications.runAt)
      .limit(limit)
      .for("update", { skipLocked: true });
    const jobIds: string[] = [];
    for (const row of due) {
      try {
        jobIds.push((await startPublishing(tx, row, { bumpRevision: false })).jobId);
        await audit(tx, {
          actorUserId: null,
          workspaceId: row.workspaceId,
          action: "publication.publish.scheduled",
          targetType: "publication",
          targetId: row.id,
        });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        // Nothing to publish to (every destination removed): it cannot run, so it fails visibly.
        await tx.update(publications).set({ status: "failed", updatedAt: sql`now()` }).where(eq(publications.id, row.id));
        await runInOrder(tx, publicationConvergedStatements(row.workspaceId, row.id, "failed", false)); // its outbound event (lib/events)
      }
    }
    return jobIds;
  });
}

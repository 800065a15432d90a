import { and, eq, ne, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { publications, renditions } from "../../db/schema";
import type { Tx } from "../db/client";
import { DomainError } from "../errors";
import { enqueueJob } from "../jobs/outbox";
import type { PublicationRow } from "./load";
import { PUBLISHABLE, RENDITION_ERROR_CLEARED } from "./status";
import type { PublicationStatus } from "../../db/schema/publications";

/**
 * Move a publication to `publishing` and queue its delivery, in the caller's transaction (the job is
 * in the outbox only if the change commits). Renditions already published stay as they are, so
 * publishing a partially published publication again only retries the rest, with the same delivery
 * keys, so nothing already posted is posted twice.
 */
export async function startPublishing(tx: Tx, row: PublicationRow, opts: { bumpRevision: boolean }): Promise<{ jobId: string; revision: number }> {
  assertPublishable(row.status);
  const queued = await tx
    .update(renditions)
    .set(QUEUED_RENDITION)
    .where(and(eq(renditions.publicationId, row.id), ne(renditions.status, "published")))
    .returning({ id: renditions.id });
  if (queued.length === 0) throw noDestinations();
  const revision = opts.bumpRevision ? row.revision + 1 : row.revision;
  await tx.update(publications).set(startedPublication(revision)).where(eq(publications.id, row.id));
  const jobId = await enqueueJob(tx, "publication.publish", row.workspaceId, { publication_id: row.id });
  return { jobId, revision };
}

/** A publication in this status may be published (again); else 409 not-editable. */
export function assertPublishable(status: PublicationStatus): void {
  if (!PUBLISHABLE.includes(status)) {
    throw new DomainError(
      "not-editable",
      status === "publishing" ? "This publication is already being published." : `A ${status.replace("_", " ")} publication cannot be published again.`,
    );
  }
}

/** Every rendition is published already, or there are none. */
export const noDestinations = () =>
  new DomainError("validation-error", "The publication has no destinations to publish to; add at least one.", {
    errors: [{ location: "body.destinations", message: "No destinations" }],
  });

/** A rendition (re)queued for delivery: due now, the last attempt's error cleared. Published ones are left alone. */
export const QUEUED_RENDITION = {
  status: "queued",
  // A new round of at most 8 attempts (lib/delivery/rules.ts) counts from here.
  attemptsBeforeRound: sql`${renditions.attemptCount}`,
  nextAttemptAt: sql`now()`,
  ...RENDITION_ERROR_CLEARED,
  terminalReason: null,
  updatedAt: sql`now()`,
} satisfies PgUpdateSetSource<typeof renditions>;

export const startedPublication = (revision: number) =>
  ({ status: "publishing", revision, actualRunAt: sql`now()`, calendarAt: sql`now()`, updatedAt: sql`now()` }) satisfies PgUpdateSetSource<typeof publications>;

import { and, eq, ne, sql } from "drizzle-orm";
import { publications, renditions } from "../../db/schema";
import type { Tx } from "../db/client";
import { ApiError } from "../http/errors";
import { enqueueJob } from "../jobs/outbox";
import type { PublicationRow } from "./load";
import { PUBLISHABLE } from "./status";

export interface PublishJobPayload {
  publication_id: string;
}

/**
 * Move a publication to `publishing` and queue its delivery, in the caller's transaction (the job is
 * in the outbox only if the change commits). Renditions already published stay as they are, so
 * publishing a partially published publication again only retries the rest, with the same delivery
 * keys, so nothing already posted is posted twice.
 */
export async function startPublishing(tx: Tx, row: PublicationRow, opts: { bumpRevision: boolean }): Promise<{ jobId: string; revision: number }> {
  if (!PUBLISHABLE.includes(row.status)) {
    throw new ApiError("not-editable", {
      detail: row.status === "publishing" ? "This publication is already being published." : `A ${row.status.replace("_", " ")} publication cannot be published again.`,
    });
  }
  const queued = await tx
    .update(renditions)
    .set({
      status: "queued",
      nextAttemptAt: sql`now()`,
      errorKind: null,
      errorCode: null,
      errorMessage: null,
      errorHttpStatus: null,
      errorRetryable: false,
      errorRetryAt: null,
      errorAction: null,
      terminalReason: null,
      recoveryAction: "none",
      updatedAt: sql`now()`,
    })
    .where(and(eq(renditions.publicationId, row.id), ne(renditions.status, "published")))
    .returning({ id: renditions.id });
  if (queued.length === 0) {
    throw new ApiError("validation-error", {
      detail: "The publication has no destinations to publish to; add at least one.",
      errors: [{ location: "body.destinations", message: "No destinations" }],
    });
  }
  const revision = opts.bumpRevision ? row.revision + 1 : row.revision;
  await tx
    .update(publications)
    .set({ status: "publishing", revision, actualRunAt: sql`now()`, calendarAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(publications.id, row.id));
  const jobId = await enqueueJob(tx, "publication.publish", row.workspaceId, { publication_id: row.id } satisfies PublishJobPayload);
  return { jobId, revision };
}

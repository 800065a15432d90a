import { and, count, eq, exists, inArray, ne, sql } from "drizzle-orm";
import { auditEvents, outboxJobs, publications, renditions, workspaceMembers, type Role } from "../../db/schema";
import { auditRow, type AuditEntry } from "../audit";
import { inOneTransaction } from "../db/batch";
import type { Database } from "../db/client";
import { insertWhere } from "../db/insert-where";
import { revisionConflict, assertRevision } from "../http/concurrency";
import { notFound } from "../http/errors";
import { checkRole, rolesAtLeast } from "../http/workspace-guard";
import { outboxRow } from "../jobs/outbox";
import { actionOutputOf, renditionsInOrder } from "./action-output";
import { assertPublishable, noDestinations, QUEUED_RENDITION, startedPublication, type PublishJobPayload } from "./start";

/** Reads and batches before giving up on a publication that keeps changing under us. */
const TRIES = 3;
const ROLE: Role = "editor";

interface Request {
  publicationId: string;
  userId: string;
  expectedRevision: number;
  /** The audit entry's actor (who, how, which request). */
  actor: Pick<AuditEntry, "actorUserId" | "actorKind" | "requestId">;
  message: string;
}

/**
 * publish-now without an interactive transaction (no WebSocket, no Postgres session of its own): one request
 * reads the publication, the caller's role and what there is to queue; the checks are startPublishing's; then
 * one batch locks the publication and makes every write only if it is still exactly as read (revision,
 * status, updated_at, something to queue, and the caller still an editor). The writes are those of startPublishing and its audit
 * entry, so they commit together or not at all; if the publication moved in between, read and decide again.
 */
export async function startPublishingAsRead(db: Database, req: Request) {
  for (let tries = 1; ; tries++) {
    const [[read], [{ toQueue }]] = await inOneTransaction(db, (q) => [
      q
        .select({ row: publications, role: workspaceMembers.role })
        .from(publications)
        .leftJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, publications.workspaceId), eq(workspaceMembers.userId, req.userId)))
        .where(eq(publications.id, req.publicationId))
        .limit(1),
      q.select({ toQueue: count() }).from(renditions).where(and(eq(renditions.publicationId, req.publicationId), ne(renditions.status, "published"))),
    ]);
    if (!read) throw notFound("publication");
    const { row } = read;
    checkRole(read.role, ROLE, "publication");
    assertRevision(req.expectedRevision, row.revision, "publication");
    assertPublishable(row.status);
    if (toQueue === 0) throw noDestinations();

    const revision = row.revision + 1;
    // Under a send lease: the caller sends it right after the commit, without taking it first.
    const job = outboxRow("publication.publish", row.workspaceId, { publication_id: row.id } satisfies PublishJobPayload, { leased: true });
    const asRead = and(eq(publications.id, row.id), eq(publications.revision, row.revision), eq(publications.status, row.status), eq(publications.updatedAt, row.updatedAt));
    const [, , , , started, after] = await inOneTransaction(db, (q) => {
      // Evaluated by each statement under the lock taken first: it holds for all of them or for none.
      const stillAsRead = and(
        exists(q.select({ one: sql`1` }).from(publications).where(asRead)),
        exists(
          q
            .select({ one: sql`1` })
            .from(workspaceMembers)
            .where(and(eq(workspaceMembers.workspaceId, row.workspaceId), eq(workspaceMembers.userId, req.userId), inArray(workspaceMembers.role, rolesAtLeast(ROLE)))),
        ),
        exists(q.select({ one: sql`1` }).from(renditions).where(and(eq(renditions.publicationId, row.id), ne(renditions.status, "published")))),
      )!;
      return [
        q.select({ id: publications.id }).from(publications).where(eq(publications.id, row.id)).for("update"),
        q.update(renditions).set(QUEUED_RENDITION).where(and(eq(renditions.publicationId, row.id), ne(renditions.status, "published"), stillAsRead)),
        insertWhere(outboxJobs, job, stillAsRead),
        insertWhere(auditEvents, auditRow({ ...req.actor, workspaceId: row.workspaceId, action: "publication.publish", targetType: "publication", targetId: row.id }), stillAsRead),
        // Last of the writes: after it the publication is no longer as read.
        q.update(publications).set(startedPublication(revision)).where(and(asRead, stillAsRead)).returning({ id: publications.id }),
        renditionsInOrder(q, row.id),
      ];
    });
    if (started.length === 1) {
      return { job, output: actionOutputOf(after, row.id, { revision, jobId: job.id, message: req.message }) };
    }
    if (tries >= TRIES) throw revisionConflict(row.revision, "publication");
  }
}

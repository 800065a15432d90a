import { and, count, eq, exists, getTableColumns, inArray, ne, sql } from "drizzle-orm";
import { auditEvents, outboxJobs, publications, renditions, workspaceMembers, type Role } from "../../db/schema";
import { auditRow, type AuditEntry } from "../audit";
import { inOneTransactionNamed } from "../db/batch";
import { BoundStatement, compileSql, compileStatement, placeholder, statementBuilder as q, type NoRow } from "../db/compiled";
import type { Queryable } from "../db/client";
import { insertWhere } from "../db/insert-where";
import { assertRevision, notFound, revisionConflict } from "../errors";
import { checkRole, rolesAtLeast } from "../workspaces/roles";
import { outboxRow } from "../jobs/outbox";
import { actionOutputOf, renditionsInOrder } from "./action-output";
import type { PublicationRow, RenditionRow } from "./load";
import { assertPublishable, noDestinations, QUEUED_RENDITION, startedPublication } from "./start";

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
export async function startPublishingAsRead(db: Queryable, req: Request) {
  const s = statements();
  const ids = { id: req.publicationId, userId: req.userId };
  for (let tries = 1; ; tries++) {
    const [reads] = await inOneTransactionNamed(db, () => [{ read: new BoundStatement(s.read, ids), toQueue: new BoundStatement(s.toQueue, ids) }]);
    const [read] = reads.read;
    const [{ toQueue }] = reads.toQueue;
    if (!read) throw notFound("publication");
    const { role, ...row } = read;
    checkRole(role, ROLE, "publication");
    assertRevision(req.expectedRevision, row.revision, "publication");
    assertPublishable(row.status);
    if (toQueue === 0) throw noDestinations();

    const revision = row.revision + 1;
    // Under a send lease: the caller sends it right after the commit, without taking it first.
    const job = outboxRow("publication.publish", row.workspaceId, { publication_id: row.id }, { leased: true, requestId: req.actor.requestId ?? null });
    const audit = auditRow({ ...req.actor, workspaceId: row.workspaceId, action: "publication.publish", targetType: "publication", targetId: row.id });
    const values = {
      ...ids,
      // As read: the statements below apply only while the publication is still so.
      revision: row.revision,
      status: row.status,
      updatedAt: row.updatedAt.toISOString(),
      workspaceId: row.workspaceId,
      newRevision: revision,
      jobId: job.id,
      payload: job.payload,
      auditId: audit.id,
      actorUserId: audit.actorUserId ?? null,
      actorKind: audit.actorKind,
      requestId: audit.requestId ?? null,
    };
    // In this order: the lock first, so every later statement sees the publication as it is under it.
    const [{ started, after }] = await inOneTransactionNamed(db, () => [
      {
        lock: new BoundStatement(s.lock, values),
        queue: new BoundStatement(s.queue, values),
        job: new BoundStatement(s.job, values),
        audit: new BoundStatement(s.audit, values),
        started: new BoundStatement(s.start, values),
        after: new BoundStatement(s.renditions, values),
      },
    ]);
    if (started.length === 1) {
      return { job, output: actionOutputOf(after, row.id, { revision, jobId: job.id, message: req.message }) };
    }
    if (tries >= TRIES) throw revisionConflict(row.revision, "publication");
  }
}

const p = placeholder;

/** Built once per isolate (lib/db/compiled.ts): building them with drizzle cost each call about 1 ms of CPU. */
function compileAll() {
  const publicationColumns = getTableColumns(publications);
  const renditionColumns = getTableColumns(renditions);
  const asRead = and(
    eq(publications.id, p("id")),
    eq(publications.revision, p("revision")),
    eq(publications.status, p("status")),
    eq(publications.updatedAt, p("updatedAt")),
  );
  // Evaluated by each statement under the lock taken first: it holds for all of them or for none.
  const stillAsRead = and(
    exists(q.select({ one: sql`1` }).from(publications).where(asRead)),
    exists(
      q
        .select({ one: sql`1` })
        .from(workspaceMembers)
        .where(
          and(eq(workspaceMembers.workspaceId, p("workspaceId")), eq(workspaceMembers.userId, p("userId")), inArray(workspaceMembers.role, rolesAtLeast(ROLE))),
        ),
    ),
    exists(
      q
        .select({ one: sql`1` })
        .from(renditions)
        .where(and(eq(renditions.publicationId, p("id")), ne(renditions.status, "published"))),
    ),
  )!;
  // The job carries the request's id into its consumer's logs (the same value as the audit entry's).
  const job = outboxRow("publication.publish", p("workspaceId"), p("payload"), { leased: true, requestId: p("requestId") });
  const audit = auditRow({
    actorUserId: p("actorUserId"),
    actorKind: p("actorKind"),
    requestId: p("requestId"),
    workspaceId: p("workspaceId"),
    action: "publication.publish",
    targetType: "publication",
    targetId: p("id"),
  });
  return {
    /** The publication and the caller's role in its workspace. */
    read: compileStatement<PublicationRow & { role: Role | null }>(
      q
        .select({ ...publicationColumns, role: workspaceMembers.role })
        .from(publications)
        .leftJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, publications.workspaceId), eq(workspaceMembers.userId, p("userId"))))
        .where(eq(publications.id, p("id")))
        .limit(1),
      { ...publicationColumns, role: workspaceMembers.role },
    ),
    toQueue: compileStatement<{ toQueue: number }>(
      q
        .select({ toQueue: count() })
        .from(renditions)
        .where(and(eq(renditions.publicationId, p("id")), ne(renditions.status, "published"))),
      { toQueue: count() },
    ),
    lock: compileStatement<NoRow>(
      q
        .select({ id: publications.id })
        .from(publications)
        .where(eq(publications.id, p("id")))
        .for("update"),
      {},
    ),
    queue: compileStatement<NoRow>(
      q
        .update(renditions)
        .set(QUEUED_RENDITION)
        .where(and(eq(renditions.publicationId, p("id")), ne(renditions.status, "published"), stillAsRead)),
      {},
    ),
    job: compileSql<NoRow>(insertWhere(outboxJobs, { ...job, id: p("jobId") }, stillAsRead), {}),
    audit: compileSql<NoRow>(insertWhere(auditEvents, { ...audit, id: p("auditId") }, stillAsRead), {}),
    // Last of the writes: after it the publication is no longer as read.
    start: compileStatement<{ id: string }>(
      q
        .update(publications)
        .set(startedPublication(p("newRevision")))
        .where(and(asRead, stillAsRead))
        .returning({ id: publications.id }),
      { id: publications.id },
    ),
    renditions: compileStatement<RenditionRow>(renditionsInOrder(q, p("id")), renditionColumns),
  };
}

let compiled: ReturnType<typeof compileAll> | undefined;
const statements = () => (compiled ??= compileAll());

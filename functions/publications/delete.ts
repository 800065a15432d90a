import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, isNull, sql } from "drizzle-orm";
import { outboxJobs, publications, renditions } from "../../db/schema";
import { audit } from "../../lib/audit";
import type { Tx } from "../../lib/db/client";
import { assertRevision } from "../../lib/errors";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { clearMediaUsages } from "../../lib/media/usage";
import { actionOutput } from "../../lib/publishing/action-output";
import { BooleanQuery, ExpectedRevisionQuery } from "../../lib/schemas/common";
import { PublicationIdParams } from "./requests";
import { ActionOutputBody } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const DeletePublicationQuery = z.object({
  confirm: BooleanQuery.optional().openapi({
    description: "Must be `true`: explicit confirmation of permanent deletion (400 confirmation-required otherwise)",
  }),
  expected_revision: ExpectedRevisionQuery.openapi({ description: "The revision the editor loaded" }),
});

export const route = createRoute({
  method: "delete",
  path: "/publications/{id}",
  operationId: "deletePublication",
  tags: ["publications"],
  summary: "Permanently delete an editable publication",
  description:
    "Removes the publication, its renditions and segments and any delivery not yet sent. Needs `confirm=true` and the current `expected_revision`. A publication stuck publishing can be deleted once no delivery holds one of its renditions; while one is being sent the answer is 409 not-editable: cancel it first and delete it after that delivery has finished. Posts already on platforms stay there. Needs the editor role.",
  request: { params: PublicationIdParams, query: DeletePublicationQuery },
  responses: { 200: jsonResponse(ActionOutputBody, "Deleted"), ...problems(400, 401, 403, 404, 409, 422) },
});

/**
 * Whether a delivery holds one of the publication's renditions (a live lease): it may be posting right now, and
 * deleting under it would lose the record of what it posts. The renditions are locked until the transaction
 * ends, so a delivery cannot claim one between this check and the delete (its claim waits, then finds nothing).
 */
async function beingSent(tx: Tx, publicationId: string): Promise<boolean> {
  const rows = await tx
    .select({ held: sql<boolean>`${renditions.leaseUntil} is not null and ${renditions.leaseUntil} > now()` })
    .from(renditions)
    .where(eq(renditions.publicationId, publicationId))
    .for("update");
  return rows.some((r) => r.held);
}

export const access = workspaceRole("editor", resourceInPath("publication"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { confirm, expected_revision } = c.req.valid("query");
  const output = await db(c).transaction(async (tx) => {
    const row = await lockScopedResource(c, tx, "publication");
    if (confirm !== true) {
      throw new ApiError("confirmation-required", { detail: "Deleting is permanent: repeat the request with confirm=true." });
    }
    assertRevision(expected_revision, row.revision, "publication");
    if (await beingSent(tx, id)) {
      throw new ApiError("not-editable", {
        detail:
          "A rendition of this publication is being sent right now: cancel the publication (POST /publications/{id}/cancel), then delete it once that delivery has finished.",
      });
    }
    const output = await actionOutput(tx, id, { revision: row.revision, jobId: null, message: "The publication and its renditions were deleted." });
    // Jobs not yet handed to SQS go with it; a job already in SQS finds nothing and does nothing.
    await tx
      .delete(outboxJobs)
      .where(and(isNull(outboxJobs.sentAt), eq(outboxJobs.kind, "publication.publish"), sql`${outboxJobs.payload}->>'publication_id' = ${id}`));
    await clearMediaUsages(tx, "publication", [id]);
    await tx.delete(publications).where(eq(publications.id, id));
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "publication.delete", targetType: "publication", targetId: id });
    return output;
  });
  return c.json(withSchema(c, ActionOutputBody, output), 200);
};

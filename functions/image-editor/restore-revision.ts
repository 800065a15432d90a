import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { designRevisions } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { storedImageDocument } from "../../lib/image-editor/document";
import { advanceHead } from "../../lib/image-editor/revisions";
import { IdParam, RevisionField } from "../../lib/schemas/common";
import { toDesign } from "./design-view";
import { DesignResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

export const RestoreDesignRevisionRequest = z
  .object({ expected_revision: RevisionField.openapi({ description: "The design's current revision, as loaded" }) })
  .openapi("RestoreDesignRevisionRequest");

export const route = createRoute({
  method: "post",
  path: "/image-editor/designs/{id}/revisions/{revision_id}/restore",
  operationId: "restoreDesignRevision",
  tags: ["image-editor"],
  summary: "Restore a design revision as a new head revision",
  description:
    "The chosen revision's document becomes a new revision (head + 1); every earlier revision, the chosen one included, stays as it was. " +
    "`revision_id` is an `id` from GET /image-editor/designs/{id}/revisions. Needs the editor role. A stale `expected_revision` answers 409 revision-conflict.",
  request: {
    params: z.object({ id: IdParam.openapi({ description: "Design ID" }), revision_id: IdParam.openapi({ description: "Revision ID" }) }),
    body: jsonBody(RestoreDesignRevisionRequest),
  },
  responses: { 200: jsonResponse(DesignResponse, "The design at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("design"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, revision_id } = c.req.valid("param");
  const { expected_revision } = c.req.valid("json");
  const user = currentUser(c);
  const { design, document } = await db(c).transaction(async (tx) => {
    const [source] = await tx
      .select({ id: designRevisions.id, document: designRevisions.document })
      .from(designRevisions)
      .where(and(eq(designRevisions.id, revision_id), eq(designRevisions.designId, id)));
    if (!source) throw notFound("design revision");
    const document = storedImageDocument(source.document);
    const design = await advanceHead(tx, { designId: id, expectedRevision: expected_revision, document, userId: user.id, restoredFromId: source.id });
    await audit(tx, { ...auditActor(c), workspaceId: design.workspaceId, action: "design.restore", targetType: "design", targetId: id });
    return { design, document };
  });
  return c.json(withSchema(c, DesignResponse, toDesign(design, document, scope(c).role)), 200);
};

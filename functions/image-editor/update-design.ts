import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { advanceHead } from "../../lib/image-editor/revisions";
import { toDesign } from "./design-view";
import { DesignIdParams, DesignResponse, UpdateDesignRequest } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "put",
  path: "/image-editor/designs/{id}",
  operationId: "updateDesign",
  tags: ["image-editor"],
  summary: "Save a design's document as a new revision (editor or higher)",
  description: "Every revision is kept. A stale `expected_revision` answers 409 revision-conflict with current_revision and changes nothing.",
  request: { params: DesignIdParams, body: jsonBody(UpdateDesignRequest) },
  responses: { 200: jsonResponse(DesignResponse, "The design at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("design"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { expected_revision, document } = c.req.valid("json");
  const user = currentUser(c);
  const design = await db(c).transaction(async (tx) => {
    const design = await advanceHead(tx, { designId: id, expectedRevision: expected_revision, document, userId: user.id });
    await audit(tx, { ...auditActor(c), workspaceId: design.workspaceId, action: "design.update", targetType: "design", targetId: id });
    return design;
  });
  return c.json(withSchema(c, DesignResponse, toDesign(design, document, scope(c).role)), 200);
};

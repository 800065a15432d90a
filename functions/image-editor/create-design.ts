import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { insertDesign } from "../../lib/image-editor/revisions";
import { toDesign } from "./design-view";
import { CreateDesignRequest, DesignResponse } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "post",
  path: "/image-editor/designs",
  operationId: "createDesign",
  tags: ["image-editor"],
  summary: "Create a design (editor or higher)",
  description:
    "Starts at revision 1. Media the document uses (image layers, page background images) are recorded as in use. " +
    "Accepts an Idempotency-Key so a retried request never creates a second design.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateDesignRequest) },
  responses: { 201: jsonResponse(DesignResponse, "The new design"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  const { role } = scope(c);
  return idempotent(c, { workspaceId: body.workspace_id, operation: "designs.create", request: body }, async (tx) => {
    const design = await insertDesign(tx, { workspaceId: body.workspace_id, userId: user.id, document: body.document });
    await audit(tx, { ...auditActor(c), workspaceId: design.workspaceId, action: "design.create", targetType: "design", targetId: design.id });
    return { status: 201, body: withSchema(c, DesignResponse, toDesign(design, body.document, role)) };
  });
};

import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { imageTemplates } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { mentionedMediaIds, referencedMediaIds } from "../../lib/image-editor/document-rules";
import { replaceMediaUsages } from "../../lib/media/usage";
import { CreateTemplateRequest, TemplateResponse } from "./schemas";
import { toTemplate } from "./template-view";
import { inBody, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/image-editor/templates",
  operationId: "createTemplate",
  tags: ["image-editor"],
  summary: "Create a workspace template (editor or higher)",
  description: "`preset_key` is taken from the document. Accepts an Idempotency-Key so a retried request never creates a second template.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateTemplateRequest) },
  responses: { 201: jsonResponse(TemplateResponse, "The new template"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  return idempotent(c, { workspaceId: body.workspace_id, operation: "templates.create", request: body }, async (tx) => {
    const [row] = await tx
      .insert(imageTemplates)
      .values({
        id: newId("tpl"),
        workspaceId: body.workspace_id,
        name: body.name,
        category: body.category,
        presetKey: body.document.preset_key ?? null,
        document: body.document,
        createdBy: user.id,
      })
      .returning();
    await replaceMediaUsages(
      tx,
      { workspaceId: row.workspaceId, ownerType: "template", ownerId: row.id },
      referencedMediaIds(body.document),
      "body.document",
      mentionedMediaIds(body.document),
    );
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "template.create", targetType: "template", targetId: row.id });
    return { status: 201, body: withSchema(c, TemplateResponse, toTemplate(row)) };
  });
};

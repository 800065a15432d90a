import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { eq, sql } from "drizzle-orm";
import { imageTemplates } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { builtInTemplate } from "../../lib/image-editor/built-in-templates";
import { mentionedMediaIds, referencedMediaIds } from "../../lib/image-editor/document-rules";
import { replaceMediaUsages } from "../../lib/media/usage";
import { IdParam } from "../../lib/schemas/common";
import { ImageDocument } from "../../lib/image-editor/document";
import { TemplateCategory, TemplateName, TemplateResponse } from "./schemas";
import { toTemplate } from "./template-view";
import { resourceInPath, workspaceRole } from "../../lib/http/access";

/** PATCH semantics: members given replace the stored ones, members left out stay. */
export const UpdateTemplateRequest = z
  .object({
    name: TemplateName.optional(),
    category: TemplateCategory.optional(),
    document: ImageDocument.optional().openapi({ description: "The new template snapshot" }),
  })
  .refine((body) => body.name !== undefined || body.category !== undefined || body.document !== undefined, {
    message: "Give at least one of name, category, document",
  })
  .openapi("UpdateTemplateRequest");

/**
 * A built-in template belongs to no workspace, so the access rule would answer 404 for it; anyone may know
 * the built-ins, and changing one is refused to everyone. The route's own middleware runs before its access rule.
 */
const refuseBuiltIn: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (builtInTemplate(c.req.param("id") ?? ""))
    throw new ApiError("forbidden", { detail: "Built-in templates cannot be changed; create a workspace template from this one instead." });
  await next();
};

export const route = createRoute({
  method: "patch",
  path: "/image-editor/templates/{id}",
  operationId: "updateTemplate",
  tags: ["image-editor"],
  summary: "Replace a workspace template's snapshot",
  description:
    "Built-in templates cannot be changed (403 forbidden). Needs the editor role in the template's workspace; a template of a workspace " +
    "the caller is not a member of is 404. A new document's `preset_key` becomes the template's.",
  middleware: [refuseBuiltIn] as const,
  request: { params: z.object({ id: IdParam.openapi({ description: "Template ID" }) }), body: jsonBody(UpdateTemplateRequest) },
  responses: { 200: jsonResponse(TemplateResponse, "The updated template"), ...problems(400, 401, 403, 404, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("template"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const row = await db(c).transaction(async (tx) => {
    // The row lock taken here orders concurrent PATCHes, so each one's media usages match its own document.
    const [row] = await tx
      .update(imageTemplates)
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.category !== undefined ? { category: body.category } : {}),
        ...(body.document !== undefined ? { document: body.document, presetKey: body.document.preset_key ?? null } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(imageTemplates.id, id))
      .returning();
    if (!row) throw notFound("template");
    if (body.document !== undefined) {
      await replaceMediaUsages(
        tx,
        { workspaceId: row.workspaceId, ownerType: "template", ownerId: row.id },
        referencedMediaIds(body.document),
        "body.document",
        mentionedMediaIds(body.document),
      );
    }
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "template.update", targetType: "template", targetId: row.id });
    return row;
  });
  return c.json(withSchema(c, TemplateResponse, toTemplate(row)), 200);
};

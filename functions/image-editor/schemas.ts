import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { IdParam, RevisionField, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";
import { ImageDocument } from "../../lib/image-editor/document";

/** SPEC.md 2.3 DesignResponse. */
export const DesignResponse = responseObject("DesignResponse", {
  id: z.string().openapi({ example: "dsn_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  document: ImageDocument,
  revision: z.number().int(),
  can_edit: z.boolean().openapi({ description: "Whether the caller may change this design (editor role or higher)" }),
  cover_preview_media_id: z.string().nullable().openapi({ description: "The first page's preview_media_id in the head document, or null when it has none" }),
  created_by_id: z.string().nullable().openapi({ description: "Null when the creating user no longer exists" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** SPEC.md 2.3 TemplateResponse. Built-in templates belong to no workspace. */
export const TemplateResponse = responseObject("TemplateResponse", {
  id: z.string().openapi({ example: "tpl_builtin_square_post" }),
  workspace_id: z.string().nullable().openapi({ description: "Null for built-in templates" }),
  built_in: z.boolean(),
  name: z.string(),
  category: z.string(),
  preset_key: z.string().nullable(),
  preview_media_id: z.string().nullable(),
  document: ImageDocument,
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** SPEC.md 4.3 GET /image-editor/templates. */
export const ListTemplatesOutputBody = responseObject("ListTemplatesOutputBody", {
  can_edit: z.boolean().openapi({ description: "Whether the caller may create and change workspace templates (editor role or higher)" }),
  templates: z.array(TemplateResponse),
});

/** One entry of a design's history (CONTRACT.md §5). */
export const DesignRevisionSummary = z
  .object({
    id: z.string().openapi({ example: "drv_0123456789abcdefghijklmn", description: "Pass as revision_id to restore this revision" }),
    revision: z.number().int(),
    created_at: Timestamp,
    created_by_id: z.string().nullable(),
  })
  .openapi("DesignRevisionSummary");

export const DesignRevisionList = responseObject("DesignRevisionList", {
  revisions: z.array(DesignRevisionSummary).openapi({ description: "Newest first" }),
});

export const DesignIdParams = z.object({ id: IdParam.openapi({ description: "Design ID" }) });

export const CreateDesignRequest = z.object({ workspace_id: WorkspaceIdField, document: ImageDocument }).openapi("CreateDesignRequest");

export const UpdateDesignRequest = z
  .object({ expected_revision: RevisionField.openapi({ description: "The design's revision as loaded" }), document: ImageDocument })
  .openapi("UpdateDesignRequest");

export const TemplateName = z.string().trim().min(1).max(200);
export const TemplateCategory = z.string().trim().min(1).max(100).openapi({ example: "social_post" });

export const CreateTemplateRequest = z
  .object({ workspace_id: WorkspaceIdField, name: TemplateName, category: TemplateCategory, document: ImageDocument })
  .openapi("CreateTemplateRequest");

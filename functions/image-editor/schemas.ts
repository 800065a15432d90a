import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { Timestamp } from "../../lib/schemas/common";
import { ImageDocument } from "./image-document";

/** SPEC.md 2.3 DesignResponse. */
export const DesignResponse = responseObject("DesignResponse", {
  id: z.string().openapi({ example: "dsn_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  document: ImageDocument,
  revision: z.number().int(),
  can_edit: z.boolean().openapi({ description: "Whether the caller may change this design" }),
  cover_preview_media_id: z.string().nullable(),
  created_by_id: z.string().nullable().openapi({ description: "Null when the creating user no longer exists" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** SPEC.md 2.3 TemplateResponse. Built-in templates belong to no workspace. */
export const TemplateResponse = responseObject("TemplateResponse", {
  id: z.string(),
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
  can_edit: z.boolean().openapi({ description: "Whether the caller may create and change workspace templates" }),
  templates: z.array(TemplateResponse),
});

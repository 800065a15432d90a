import type { imageTemplates } from "../../db/schema";
import { BUILT_IN_TEMPLATES_REVISED_AT, type BuiltInTemplate } from "../../lib/image-editor/built-in-templates";
import { storedImageDocument } from "../../lib/image-editor/document";

type TemplateRow = typeof imageTemplates.$inferSelect;

/** A workspace template as SPEC.md 2.3 TemplateResponse (without `$schema`). */
export const toTemplate = (row: TemplateRow) => ({
  id: row.id,
  workspace_id: row.workspaceId as string | null,
  built_in: false,
  name: row.name,
  category: row.category,
  preset_key: row.presetKey,
  preview_media_id: row.previewMediaId,
  document: storedImageDocument(row.document),
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** A built-in template as TemplateResponse: no workspace, no preview image. */
export const fromBuiltIn = (t: BuiltInTemplate): ReturnType<typeof toTemplate> => ({
  id: t.id,
  workspace_id: null,
  built_in: true,
  name: t.name,
  category: t.category,
  preset_key: t.preset_key,
  preview_media_id: null,
  document: t.document,
  created_at: BUILT_IN_TEMPLATES_REVISED_AT,
  updated_at: BUILT_IN_TEMPLATES_REVISED_AT,
});

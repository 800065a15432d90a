import { and, eq } from "drizzle-orm";
import { designRevisions, type Role } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import { roleAtLeast } from "../../lib/http/workspace-guard";
import type { DesignRow } from "../../lib/image-editor/revisions";
import { storedImageDocument, type ImageDocumentValue } from "../../lib/image-editor/document";

/** A design as SPEC.md 2.3 DesignResponse (without `$schema`). */
export const toDesign = (row: DesignRow, document: ImageDocumentValue, role: Role) => ({
  id: row.id,
  workspace_id: row.workspaceId,
  document,
  revision: row.revision,
  can_edit: roleAtLeast(role, "editor"),
  cover_preview_media_id: row.coverPreviewMediaId,
  created_by_id: row.createdBy,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** The document of one revision of a design. */
export async function documentAt(q: Queryable, designId: string, revision: number): Promise<ImageDocumentValue> {
  const [row] = await q
    .select({ document: designRevisions.document })
    .from(designRevisions)
    .where(and(eq(designRevisions.designId, designId), eq(designRevisions.revision, revision)));
  if (!row) throw new Error(`design ${designId} has no revision ${revision}`);
  return storedImageDocument(row.document);
}

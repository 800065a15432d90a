import { and, eq } from "drizzle-orm";
import { designRevisions, designs, type Role } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import { notFound } from "../../lib/http/errors";
import { requireRole, roleAtLeast } from "../../lib/http/workspace-guard";
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

/**
 * The design and the caller's role in its workspace: 404 when there is no such design or the caller is
 * not a member of its workspace, 403 when the role is below `min`.
 */
export async function loadDesignFor(q: Queryable, userId: string, id: string, min: Role): Promise<{ design: DesignRow; role: Role }> {
  const [design] = await q.select().from(designs).where(eq(designs.id, id)).limit(1);
  if (!design) throw notFound("design");
  const role = await requireRole(q, userId, design.workspaceId, min, "design");
  return { design, role };
}

/** The document of one revision of a design. */
export async function documentAt(q: Queryable, designId: string, revision: number): Promise<ImageDocumentValue> {
  const [row] = await q
    .select({ document: designRevisions.document })
    .from(designRevisions)
    .where(and(eq(designRevisions.designId, designId), eq(designRevisions.revision, revision)));
  if (!row) throw new Error(`design ${designId} has no revision ${revision}`);
  return storedImageDocument(row.document);
}

import { and, eq, sql } from "drizzle-orm";
import { designRevisions, designs } from "../../db/schema";
import type { ImageDocumentValue } from "./document";
import type { Queryable } from "../db/client";
import { notFound, revisionConflict } from "../errors";
import { newId } from "../ids";
import { replaceMediaUsages } from "../media/usage";
import { mentionedMediaIds, referencedMediaIds } from "./document-rules";

export type DesignRow = typeof designs.$inferSelect;

/** The cover a design shows in lists: its first page's preview, when the editor has made one. */
export const coverOf = (document: ImageDocumentValue) => document.pages[0]?.preview_media_id ?? null;

/** Record the document's media as used by the design (same transaction as the revision that uses them). */
const recordMedia = (tx: Queryable, design: DesignRow, document: ImageDocumentValue) =>
  replaceMediaUsages(
    tx,
    { workspaceId: design.workspaceId, ownerType: "design", ownerId: design.id },
    referencedMediaIds(document),
    "body.document",
    mentionedMediaIds(document),
  );

/** A new design at revision 1, with its first revision row. */
export async function insertDesign(tx: Queryable, input: { workspaceId: string; userId: string; document: ImageDocumentValue }): Promise<DesignRow> {
  const [design] = await tx
    .insert(designs)
    .values({ id: newId("dsn"), workspaceId: input.workspaceId, revision: 1, coverPreviewMediaId: coverOf(input.document), createdBy: input.userId })
    .returning();
  await tx.insert(designRevisions).values({ id: newId("drv"), designId: design.id, revision: 1, document: input.document, createdBy: input.userId });
  await recordMedia(tx, design, input.document);
  return design;
}

/**
 * Make `document` the design's new head revision, if the head is still `expectedRevision`. The head moves
 * with a compare-and-set (`WHERE revision = expected`), so of concurrent writers holding the same revision
 * exactly one succeeds; the others get 409 revision-conflict and nothing changes. Earlier revisions are
 * never touched: the new document is a new row.
 */
export async function advanceHead(
  tx: Queryable,
  input: { designId: string; expectedRevision: number; document: ImageDocumentValue; userId: string; restoredFromId?: string },
): Promise<DesignRow> {
  const [design] = await tx
    .update(designs)
    .set({ revision: sql`${designs.revision} + 1`, updatedAt: sql`now()`, coverPreviewMediaId: coverOf(input.document) })
    .where(and(eq(designs.id, input.designId), eq(designs.revision, input.expectedRevision)))
    .returning();
  if (!design) {
    const [current] = await tx.select({ revision: designs.revision }).from(designs).where(eq(designs.id, input.designId));
    if (!current) throw notFound("design");
    throw revisionConflict(current.revision, "design");
  }
  await tx.insert(designRevisions).values({
    id: newId("drv"),
    designId: design.id,
    revision: design.revision,
    document: input.document,
    restoredFromId: input.restoredFromId ?? null,
    createdBy: input.userId,
  });
  await recordMedia(tx, design, input.document);
  return design;
}

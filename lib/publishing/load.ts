import { asc, eq, inArray } from "drizzle-orm";
import { type publications, publicationSegments, renditions, renditionSegments } from "../../db/schema";
import type { Queryable } from "../db/client";

export type PublicationRow = typeof publications.$inferSelect;
export type RenditionRow = typeof renditions.$inferSelect;
export type RenditionSegmentRow = typeof renditionSegments.$inferSelect;
export type PublicationSegmentRow = typeof publicationSegments.$inferSelect;

export interface LoadedPublication {
  publication: PublicationRow;
  segments: PublicationSegmentRow[];
  renditions: { rendition: RenditionRow; segments: RenditionSegmentRow[] }[];
}

/** Publications with their segments and renditions, in the order given: three queries whatever the count. */
export async function loadPublications(q: Queryable, rows: PublicationRow[]): Promise<LoadedPublication[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  // One round: rendition segments are found through their renditions' publication ids, not after them.
  const [segs, rends, rsegs] = await Promise.all([
    q.select().from(publicationSegments).where(inArray(publicationSegments.publicationId, ids)).orderBy(asc(publicationSegments.position)),
    q.select().from(renditions).where(inArray(renditions.publicationId, ids)).orderBy(asc(renditions.position)),
    q
      .select({ segment: renditionSegments })
      .from(renditionSegments)
      .innerJoin(renditions, eq(renditions.id, renditionSegments.renditionId))
      .where(inArray(renditions.publicationId, ids))
      .orderBy(asc(renditionSegments.position))
      .then((found) => found.map((r) => r.segment)),
  ]);
  const group = <T, K>(items: T[], key: (t: T) => K) => {
    const map = new Map<K, T[]>();
    for (const item of items) map.set(key(item), [...(map.get(key(item)) ?? []), item]);
    return map;
  };
  const segsByPub = group(segs, (s) => s.publicationId);
  const rendsByPub = group(rends, (r) => r.publicationId);
  const rsegsByRend = group(rsegs, (s) => s.renditionId);
  return rows.map((publication) => ({
    publication,
    segments: segsByPub.get(publication.id) ?? [],
    renditions: (rendsByPub.get(publication.id) ?? []).map((rendition) => ({ rendition, segments: rsegsByRend.get(rendition.id) ?? [] })),
  }));
}

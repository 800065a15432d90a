import type { Queryable } from "../db/client";
import { loadPublications, type PublicationRow } from "./load";
import { loadMedia, toPublicationMedia } from "./media";
import { toPublicationResponse } from "./serialize";

/** Full PublicationResponse bodies (without `$schema`) for rows, in their order: four queries whatever the count. */
export async function publicationResponses(q: Queryable, baseUrl: string, rows: PublicationRow[]) {
  const [loaded, mediaRows] = await Promise.all([
    loadPublications(q, rows),
    loadMedia(
      q,
      rows.flatMap((r) => r.mediaIds),
    ),
  ]);
  return loaded.map((l) => toPublicationResponse(l, toPublicationMedia(baseUrl, l.publication.mediaIds, mediaRows)));
}

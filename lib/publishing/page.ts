import { sql, type SQLWrapper } from "drizzle-orm";
import { media, publications, publicationSegments, renditions, renditionSegments } from "../../db/schema";
import type { Queryable } from "../db/client";
import { rowFromJson } from "../db/json-rows";
import type { PublicationRow } from "./load";
import { toPublicationMedia } from "./media";
import { toPublicationResponse } from "./serialize";

type Json = Record<string, unknown>;

/**
 * A page of publications with everything their responses show (segments, renditions and their segments,
 * attached media) in ONE statement: `page` selects the page's publication rows (`select().from(publications)`
 * with filters, newest first, limit, offset); its rows are then joined to their children as JSON, so the
 * children are computed only for the rows the page keeps, never for rows an offset skips or a sort
 * discards. Rows come back newest first, as every publication list orders them.
 */
export async function publicationPage(q: Queryable, baseUrl: string, page: SQLWrapper) {
  const { rows } = await q.execute<{ publication: Json; segments: Json[]; renditions: { rendition: Json; segments: Json[] }[]; media: Json[] }>(sql`
    select row_to_json(p) as publication,
      coalesce((select json_agg(s order by s.position) from ${publicationSegments} s where s.publication_id = p.id), '[]'::json) as segments,
      coalesce((select json_agg(json_build_object(
          'rendition', r,
          'segments', coalesce((select json_agg(rs order by rs.position) from ${renditionSegments} rs where rs.rendition_id = r.id), '[]'::json)
        ) order by r.position) from ${renditions} r where r.publication_id = p.id), '[]'::json) as renditions,
      coalesce((select json_agg(m) from ${media} m where m.id = any(p.media_ids)), '[]'::json) as media
    from (${page}) p
    order by p.created_at desc, p.id desc`);
  return rows.map((row) => {
    const publication: PublicationRow = rowFromJson(publications, row.publication);
    const loaded = {
      publication,
      segments: row.segments.map((s) => rowFromJson(publicationSegments, s)),
      renditions: row.renditions.map((r) => ({
        rendition: rowFromJson(renditions, r.rendition),
        segments: r.segments.map((s) => rowFromJson(renditionSegments, s)),
      })),
    };
    const attached = new Map(row.media.map((m) => [m.id as string, rowFromJson(media, m)]));
    return { publication, response: toPublicationResponse(loaded, toPublicationMedia(baseUrl, publication.mediaIds, attached)) };
  });
}

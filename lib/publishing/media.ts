import { and, eq, inArray, isNull } from "drizzle-orm";
import { media } from "../../db/schema";
import type { Queryable, Tx } from "../db/client";
import { DomainError } from "../errors";
import { mediaFileUrl } from "../media/item";
import { replaceMediaUsages } from "../media/usage";

type MediaRow = typeof media.$inferSelect;

/**
 * The media ids a publication attaches, checked: each must be an item of this workspace's library
 * that is not in the trash (422 naming the offending entry otherwise).
 */
async function checkMedia(tx: Tx, workspaceId: string, ids: string[], location: string): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const found = await tx
    .select({ id: media.id })
    .from(media)
    .where(and(eq(media.workspaceId, workspaceId), inArray(media.id, unique), isNull(media.trashedAt)));
  const known = new Set(found.map((r) => r.id));
  const errors = ids.flatMap((id, i) =>
    known.has(id) ? [] : [{ location: `${location}[${i}]`, message: "No such media item in this workspace's library", value: id }],
  );
  if (errors.length) throw new DomainError("validation-error", "Some media items are not in this workspace's library.", { errors });
  return unique;
}

/** Validate and, with `.record`, note the publication as a user of its media (same transaction). */
export const attachMedia = Object.assign(checkMedia, {
  record: (tx: Tx, workspaceId: string, publicationId: string, ids: string[]) =>
    replaceMediaUsages(tx, { workspaceId, ownerType: "publication", ownerId: publicationId }, ids, "body.media_ids"),
});

export async function loadMedia(q: Queryable, ids: string[]): Promise<Map<string, MediaRow>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select()
    .from(media)
    .where(inArray(media.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r]));
}

function aspectRatio(width: number | null, height: number | null): string | null {
  if (!width || !height) return null;
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  const d = gcd(width, height);
  return `${width / d}:${height / d}`;
}

/** SPEC 2.5 PublicationMedia for the attached items, in the order attached. */
export function toPublicationMedia(baseUrl: string, ids: string[], rows: Map<string, MediaRow>) {
  return ids.flatMap((id, order) => {
    const m = rows.get(id);
    if (!m) return [];
    const url = mediaFileUrl(baseUrl, m.id);
    return [
      {
        id: m.id,
        role: "attachment",
        display_order: order,
        url,
        thumbnail_url: m.mediaType === "image" ? url : null,
        poster_thumbnail_url: null,
        thumbnail_timestamp_ms: null,
        mime_type: m.mimeType,
        dominant_type: m.mediaType,
        original_filename: m.originalFilename,
        alt_text: m.altText,
        aspect_ratio: aspectRatio(m.width, m.height),
        width: m.width,
        height: m.height,
        size: m.size,
        duration_ms: m.durationMs,
        frame_rate: m.frameRate,
        analysis_status: null,
        analysis_error: null,
        // This `url` needs a bearer token; platforms get signed URLs at delivery (lib/publishing/delivery-media.ts).
        public_url_ready: false,
        public_url_status: null,
        public_url_error: null,
        public_url_checked_at: null,
        settings: {},
      },
    ];
  });
}

import { asc, eq, inArray } from "drizzle-orm";
import { renditions, renditionSegments } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { DestinationInput } from "./plan";

/**
 * The destinations a publication has now, in the form POST takes, so an update that changes the
 * text but not the destinations can re-plan them: explicit segments stay explicit, a body that
 * differs from the source stays the destination's own.
 */
export async function currentDestinations(q: Queryable, publicationId: string, sourceText: string): Promise<DestinationInput[]> {
  const rows = await q.select().from(renditions).where(eq(renditions.publicationId, publicationId)).orderBy(asc(renditions.position));
  const locked = rows.filter((r) => r.formatLocked).map((r) => r.id);
  const segs = locked.length
    ? await q.select().from(renditionSegments).where(inArray(renditionSegments.renditionId, locked)).orderBy(asc(renditionSegments.position))
    : [];
  return rows.map((r) => ({
    social_account_id: r.socialAccountId,
    ...(r.body !== sourceText ? { body: r.body } : {}),
    ...(r.formatLocked
      ? {
          segments: segs
            .filter((s) => s.renditionId === r.id)
            .map((s) => ({ body: s.bodyOverride ?? s.body, ...(s.title ? { title: s.title } : {}), ...(s.url ? { url: s.url } : {}) })),
        }
      : {}),
  }));
}

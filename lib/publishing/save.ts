import { and, eq, inArray, isNull } from "drizzle-orm";
import { socialAccounts } from "../../db/schema";
import { PLATFORMS, type Platform } from "../../db/schema/accounts";
import type { Tx } from "../db/client";
import { type FieldError, invalidFields } from "../errors";
import { segmentLimit, type SegmentLimit } from "./limits";
import { loadMedia } from "./media";
import { MEDIA_REQUIRED, mediaProblems } from "./media-rules";
import { planRenditions, type DestinationInput, type PlannedRendition } from "./plan";

export interface PublicationContent {
  title: string | null;
  sourceText: string;
  destinations: DestinationInput[];
}

/** The workspace's active accounts among those named, with each one's segment limit. */
async function destinationAccounts(tx: Tx, workspaceId: string, ids: string[]) {
  const map = new Map<string, { platform: Platform; limit: SegmentLimit }>();
  if (ids.length === 0) return map;
  const rows = await tx
    .select({ id: socialAccounts.id, platform: socialAccounts.platform, textLimit: socialAccounts.textLimit })
    .from(socialAccounts)
    .where(
      and(
        eq(socialAccounts.workspaceId, workspaceId),
        inArray(socialAccounts.id, ids),
        eq(socialAccounts.isActive, true),
        isNull(socialAccounts.disconnectedAt),
      ),
    );
  for (const row of rows) map.set(row.id, { platform: row.platform, limit: segmentLimit(row.platform, row.textLimit) });
  return map;
}

/** Plan the renditions or answer 422 naming each offending field. */
export async function planOrReject(tx: Tx, workspaceId: string, content: PublicationContent): Promise<PlannedRendition[]> {
  const accounts = await destinationAccounts(
    tx,
    workspaceId,
    content.destinations.map((d) => d.social_account_id),
  );
  const { plans, problems } = planRenditions(content, accounts);
  if (problems.length) {
    const errors: FieldError[] = problems.map((p) => ({
      location: p.field === "source_text" ? "body.source_text" : `body.destinations[${p.index}].${p.field}`,
      message: p.message,
    }));
    throw invalidFields(errors);
  }
  return plans;
}

/**
 * 422 naming `body.media_ids` when the attached media (already checked to be in the library) can never
 * go out on one post of a destination platform: too many, a kind, size or video length the platform refuses.
 */
export async function assertMediaFits(tx: Tx, mediaIds: string[], platformNames: readonly string[]): Promise<void> {
  // `publications.platforms` is text[]: only the platforms Herald knows have rules.
  const platforms = platformNames.filter((p): p is Platform => (PLATFORMS as readonly string[]).includes(p));
  // Without media only a platform that requires some (Instagram) can object.
  if (platforms.length === 0 || (mediaIds.length === 0 && !platforms.some((p) => MEDIA_REQUIRED.includes(p)))) return;
  const rows = await loadMedia(tx, mediaIds);
  const facts = mediaIds.flatMap((id) => {
    const m = rows.get(id);
    return m ? [{ mediaType: m.mediaType, mimeType: m.mimeType, size: m.size, durationMs: m.durationMs }] : [];
  });
  const problems = mediaProblems(platforms, facts);
  if (problems.length) {
    const errors: FieldError[] = problems.map((p) => ({ location: `body.${p.field}`, message: p.message }));
    throw invalidFields(errors);
  }
}

// Writing the plans lives beside the rules that keep what went out (write-renditions.ts); builds import it from here.
export { rewriteRenditions, writeRenditions } from "./write-renditions";

export const platformsOf = (plans: PlannedRendition[]) => [...new Set(plans.map((p) => p.platform))];

import { and, eq, inArray, isNull } from "drizzle-orm";
import { publicationSegments, renditions, renditionSegments, socialAccounts } from "../../db/schema";
import { PLATFORMS, type Platform } from "../../db/schema/accounts";
import type { Tx } from "../db/client";
import { ApiError, type FieldError } from "../http/errors";
import { newId } from "../ids";
import { segmentLimit, type SegmentLimit } from "./limits";
import { loadMedia } from "./media";
import { mediaProblems } from "./media-rules";
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
    .where(and(eq(socialAccounts.workspaceId, workspaceId), inArray(socialAccounts.id, ids), eq(socialAccounts.isActive, true), isNull(socialAccounts.disconnectedAt)));
  for (const row of rows) map.set(row.id, { platform: row.platform, limit: segmentLimit(row.platform, row.textLimit) });
  return map;
}

/** Plan the renditions or answer 422 naming each offending field. */
export async function planOrReject(tx: Tx, workspaceId: string, content: PublicationContent): Promise<PlannedRendition[]> {
  const accounts = await destinationAccounts(tx, workspaceId, content.destinations.map((d) => d.social_account_id));
  const { plans, problems } = planRenditions(content, accounts);
  if (problems.length) {
    const errors: FieldError[] = problems.map((p) => ({
      location: p.field === "source_text" ? "body.source_text" : `body.destinations[${p.index}].${p.field}`,
      message: p.message,
    }));
    throw new ApiError("validation-error", { detail: errors.map((e) => `${e.location}: ${e.message}`).join("; "), errors });
  }
  return plans;
}

/**
 * 422 naming `body.media_ids` when the attached media (already checked to be in the library) can never
 * go out on one post of a destination platform: too many, a kind or size the platform refuses.
 */
export async function assertMediaFits(tx: Tx, mediaIds: string[], platformNames: readonly string[]): Promise<void> {
  // `publications.platforms` is text[]: only the platforms Herald knows have rules.
  const platforms = platformNames.filter((p): p is Platform => (PLATFORMS as readonly string[]).includes(p));
  if (mediaIds.length === 0 || platforms.length === 0) return;
  const rows = await loadMedia(tx, mediaIds);
  const facts = mediaIds.flatMap((id) => {
    const m = rows.get(id);
    return m ? [{ mediaType: m.mediaType, mimeType: m.mimeType, size: m.size }] : [];
  });
  const problems = mediaProblems(platforms, facts);
  if (problems.length) {
    const errors: FieldError[] = problems.map((p) => ({ location: `body.${p.field}`, message: p.message }));
    throw new ApiError("validation-error", { detail: errors.map((e) => `${e.location}: ${e.message}`).join("; "), errors });
  }
}

/**
 * Make the publication's source segment and renditions match `plans`: one transaction, the
 * publication's whole content replaced. A rendition for an account that stays keeps its id but gets
 * a new delivery key, because its content is new.
 */
export async function writeRenditions(tx: Tx, publication: { id: string; workspaceId: string; title: string | null; sourceText: string }, plans: PlannedRendition[]): Promise<void> {
  const previous = await tx.select({ id: renditions.id, accountId: renditions.socialAccountId }).from(renditions).where(eq(renditions.publicationId, publication.id));
  const keepId = new Map(previous.map((r) => [r.accountId, r.id]));
  await tx.delete(publicationSegments).where(eq(publicationSegments.publicationId, publication.id));
  await tx.delete(renditions).where(eq(renditions.publicationId, publication.id));

  const sourceSegmentId = newId("pseg");
  await tx.insert(publicationSegments).values({ id: sourceSegmentId, publicationId: publication.id, position: 0, title: publication.title, body: publication.sourceText });
  if (plans.length === 0) return;

  const renditionRows = plans.map((plan, position) => ({
    id: keepId.get(plan.socialAccountId) ?? newId("ren"),
    publicationId: publication.id,
    workspaceId: publication.workspaceId,
    socialAccountId: plan.socialAccountId,
    platform: plan.platform,
    position,
    title: plan.title,
    body: plan.body,
    formatLocked: plan.formatLocked,
    deliveryKey: newId("dlv"),
  }));
  await tx.insert(renditions).values(renditionRows);
  await tx.insert(renditionSegments).values(
    plans.flatMap((plan, i) =>
      plan.segments.map((segment, position) => ({
        id: newId("rseg"),
        renditionId: renditionRows[i].id,
        publicationSegmentId: segment.fromSource ? sourceSegmentId : null,
        position,
        title: segment.title,
        body: segment.body,
        url: segment.url,
      })),
    ),
  );
}

/** When a scheduled publication actually runs: its time plus a random delay of up to `randomDelayMinutes`. */
export function drawRunAt(scheduledAt: Date | null, randomDelayMinutes: number, random = Math.random()): Date | null {
  if (!scheduledAt) return null;
  return new Date(scheduledAt.getTime() + Math.floor(random * (randomDelayMinutes * 60_000 + 1)));
}

export const platformsOf = (plans: PlannedRendition[]) => [...new Set(plans.map((p) => p.platform))];

/** A scheduled time more than a minute in the past is almost certainly a mistake. */
export function assertFutureSchedule(scheduledAt: Date | null): void {
  if (scheduledAt && scheduledAt.getTime() < Date.now() - 60_000) {
    throw new ApiError("validation-error", {
      detail: "scheduled_at is in the past; publish now instead, or pick a future time.",
      errors: [{ location: "body.scheduled_at", message: "Must not be in the past", value: scheduledAt.toISOString() }],
    });
  }
}


import type { PublicationStatus } from "../../db/schema/publications";
import { DomainError } from "../errors";
import type { RenditionRow, RenditionSegmentRow } from "./load";
import type { PlannedRendition, PlannedSegment } from "./plan";
import { targetKey } from "./serialize";
import { EDITABLE } from "./status";

/**
 * Who may be edited (CONTRACT §9). Besides draft, scheduled and failed publications, a partially published one
 * may be edited in its renditions not yet published: that is how a rendition that failed with
 * `recovery_action: "edit_content"` is fixed and published again. Publishing and published ones may not.
 */
export const EDITABLE_STATUSES: readonly PublicationStatus[] = [...EDITABLE, "partially_published"];

export function assertEditable(status: PublicationStatus): void {
  if (!EDITABLE_STATUSES.includes(status)) {
    throw new DomainError("not-editable", `A ${status.replace("_", " ")} publication cannot be edited.`);
  }
}

export interface ExistingRendition {
  rendition: RenditionRow;
  segments: RenditionSegmentRow[];
}

const shown = (s: RenditionSegmentRow) => ({ title: s.titleOverride ?? s.title, body: s.bodyOverride ?? s.body, url: s.urlOverride ?? s.url });

/** What a re-plan would change of a rendition as it stands: its title, its body, its segments; none is `undefined`. */
export function changedPart(existing: ExistingRendition, plan: PlannedRendition): "title" | "body" | "segments" | undefined {
  const { rendition, segments } = existing;
  if (rendition.title !== plan.title) return "title";
  if (rendition.body !== plan.body) return "body";
  if (segments.length !== plan.segments.length) return "segments";
  const differs = segments.some((s, i) => {
    const [now, next] = [shown(s), plan.segments[i]];
    return now.title !== next.title || now.body !== next.body || now.url !== next.url;
  });
  return differs ? "segments" : undefined;
}

/**
 * 409 not-editable naming the first published rendition the plans would change or drop (CONTRACT §9: a
 * published rendition cannot be edited). Checked before anything is written.
 */
export function assertPublishedUntouched(existing: ExistingRendition[], plans: PlannedRendition[]): void {
  for (const e of existing) {
    if (e.rendition.status !== "published") continue;
    const plan = plans.find((p) => p.socialAccountId === e.rendition.socialAccountId);
    const part = plan ? changedPart(e, plan) : "destination";
    if (!part) continue;
    const what = part === "destination" ? "its destination cannot be removed" : `its ${part} cannot be changed`;
    throw new DomainError(
      "not-editable",
      `Rendition ${e.rendition.id} (${targetKey(e.rendition)}) is published: ${what}. Leave it as it is and edit only the renditions not yet published.`,
    );
  }
}

/**
 * The segments a re-planned rendition gets: a segment already posted stays exactly as posted, with its external
 * id (publishing again skips it and threads the rest under it, so it is never posted twice); every other position
 * takes the plan's segment. Positions posted are left out of the returned list.
 */
export function segmentsToWrite(existing: RenditionSegmentRow[], planned: PlannedSegment[]): { position: number; segment: PlannedSegment }[] {
  const posted = new Set(existing.filter((s) => s.status === "published").map((s) => s.position));
  return planned.flatMap((segment, position) => (posted.has(position) ? [] : [{ position, segment }]));
}

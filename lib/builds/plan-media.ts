import { mediaProblemsFor } from "../publishing/media-rules";
import type { InputSource, MediaChoice, OutputProfile, PlanContext, ReviewFlag } from "./plan-types";
import { isPlatform } from "../../db/schema/accounts";

export interface MediaPlan {
  choices: MediaChoice[];
  /** Media ids in the order chosen (what a committed publication attaches). */
  mediaIds: string[];
  flags: ReviewFlag[];
  /** Publishable media this destination cannot carry, with why (for the warnings). */
  refused: string[];
}

/**
 * The media one destination carries: publishable media sources in the order given, within the
 * profile's count and types and the platform's own rules for one post (a Mastodon status takes one
 * video or up to four images, not both). Alt text is carried over as the brief; media without alt
 * text is flagged, since people using screen readers would otherwise get nothing.
 */
export function chooseMedia(
  accountId: string,
  platform: string,
  profile: OutputProfile,
  sources: readonly InputSource[],
  media: PlanContext["media"],
  preference: string | null,
): MediaPlan {
  const plan: MediaPlan = { choices: [], mediaIds: [], flags: [], refused: [] };
  if (preference === "none") return plan;
  const chosen: { source: InputSource; item: PlanContext["media"][string] }[] = [];
  for (const source of sources) {
    const item = source.kind === "media" ? media[source.id] : undefined;
    if (!item || !source.publishable) continue;
    if (chosen.length >= profile.media_max_count) {
      plan.refused.push(`${source.label}: at most ${profile.media_max_count} media per post`);
      continue;
    }
    if (!profile.allowed_mimes.includes(item.mime_type)) {
      plan.refused.push(`${source.label}: ${platform} does not take ${item.mime_type}`);
      continue;
    }
    const candidate = [...chosen, { source, item }];
    const problems = isPlatform(platform)
      ? mediaProblemsFor(
          platform,
          candidate.map((c) => ({ mediaType: c.item.media_type, mimeType: c.item.mime_type, size: c.item.size })),
        )
      : [];
    if (problems.length > 0) {
      plan.refused.push(`${source.label}: ${problems[0].message}`);
      continue;
    }
    chosen.push({ source, item });
  }
  chosen.forEach(({ source, item }, i) => {
    const alt = item.alt_text?.trim() ?? "";
    plan.choices.push({ brief: alt || source.label, role: i === 0 ? "lead" : "supporting", source_ref: source.id, treatment: "attach as is" });
    plan.mediaIds.push(item.media_id);
    if (!alt)
      plan.flags.push({
        account_id: accountId,
        field: `media.${source.id}.alt_text`,
        message: `${source.label} has no alt text; add a description before publishing.`,
        severity: "warning",
      });
  });
  return plan;
}

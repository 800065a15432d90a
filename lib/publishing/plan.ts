import type { Platform } from "../../db/schema/accounts";
import type { SegmentLimit } from "./limits";
import { segmentText } from "../providers/text";
import { SegmentationError, splitIntoSegments } from "./segment";

export interface DestinationInput {
  social_account_id: string;
  title?: string;
  body?: string;
  segments?: { title?: string; body: string; url?: string }[];
}

export interface PlannedSegment {
  title: string | null;
  body: string;
  url: string | null;
  /** Derived from the publication's source segment (not given explicitly). */
  fromSource: boolean;
}

export interface PlannedRendition {
  socialAccountId: string;
  platform: Platform;
  title: string | null;
  body: string;
  formatLocked: boolean;
  segments: PlannedSegment[];
}

export interface PlanProblem {
  index: number;
  field: string;
  message: string;
}

/**
 * Shape a publication for each destination: explicit segments are kept as given (checked against the
 * platform's limit), otherwise the destination's body (or the source text) is split within the limit.
 * Pure: returns the plan or the problems, one per offending field.
 */
export function planRenditions(
  input: { title: string | null; sourceText: string; destinations: DestinationInput[] },
  accounts: Map<string, { platform: Platform; limit: SegmentLimit }>,
): { plans: PlannedRendition[]; problems: PlanProblem[] } {
  const plans: PlannedRendition[] = [];
  const problems: PlanProblem[] = [];
  input.destinations.forEach((dest, index) => {
    const account = accounts.get(dest.social_account_id);
    if (!account) {
      problems.push({ index, field: "social_account_id", message: "No such connected account in this workspace" });
      return;
    }
    const { limit, measure } = account.limit;
    const body = dest.body ?? input.sourceText;
    const title = dest.title ?? input.title;
    if (dest.segments) {
      dest.segments.forEach((segment, i) => {
        // Measured as posted: the body, with the segment's URL on a line of its own when not already in it.
        const length = measure(segmentText({ body: segment.body, url: segment.url ?? null }));
        if (length > limit) problems.push({ index, field: `segments[${i}].body`, message: `Longer than the ${account.platform} limit (${length} > ${limit})` });
      });
      const joined = joinedProblem(
        account,
        dest.segments.map((s) => segmentText({ body: s.body, url: s.url ?? null })),
      );
      if (joined) problems.push({ index, field: "segments", message: joined });
      const post = postProblem(
        account,
        dest.segments.map((s) => segmentText({ body: s.body, url: s.url ?? null })),
      );
      if (post) problems.push({ index, field: "segments", message: post });
      plans.push({
        socialAccountId: dest.social_account_id,
        platform: account.platform,
        title,
        body,
        formatLocked: true,
        segments: dest.segments.map((s) => ({ title: s.title ?? null, body: s.body, url: s.url ?? null, fromSource: false })),
      });
      return;
    }
    try {
      const parts = splitIntoSegments(body, limit, measure);
      const joined = joinedProblem(account, parts) ?? postProblem(account, parts);
      if (joined) {
        // Named by destination even when the text is the publication's source: only this destination refuses it.
        problems.push({ index, field: "body", message: joined });
        return;
      }
      plans.push({
        socialAccountId: dest.social_account_id,
        platform: account.platform,
        title,
        body,
        formatLocked: false,
        segments: parts.map((part, i) => ({ title: i === 0 ? title : null, body: part, url: null, fromSource: dest.body === undefined })),
      });
    } catch (err) {
      if (!(err instanceof SegmentationError)) throw err;
      problems.push({ index, field: dest.body === undefined ? "source_text" : "body", message: err.message });
    }
  });
  const seen = new Set<string>();
  input.destinations.forEach((dest, index) => {
    if (seen.has(dest.social_account_id)) problems.push({ index, field: "social_account_id", message: "The same account is listed twice" });
    seen.add(dest.social_account_id);
  });
  return { plans, problems };
}

/** The platform's rule on the whole post's text (the segments as joined), beyond its length; null when none objects. */
function postProblem(account: { limit: SegmentLimit }, texts: string[]): string | null {
  const { joinedWith, postProblem: rule } = account.limit;
  if (!rule) return null;
  const posts = joinedWith === undefined ? texts : [texts.filter((t) => t !== "").join(joinedWith)];
  for (const text of posts) {
    const problem = rule(text);
    if (problem) return problem;
  }
  return null;
}

/**
 * A platform without threads that joins a rendition's segments into one post (LinkedIn): the whole must fit
 * one post, or the rendition is refused here rather than cut short at delivery. Null when it fits.
 */
function joinedProblem(account: { platform: Platform; limit: SegmentLimit }, texts: string[]): string | null {
  const { joinedWith, limit, measure } = account.limit;
  if (joinedWith === undefined || texts.length < 2) return null;
  const length = measure(texts.filter((t) => t !== "").join(joinedWith));
  return length > limit
    ? `${account.platform} has no threads: the segments are joined into one post of ${length} characters, over its limit of ${limit}`
    : null;
}

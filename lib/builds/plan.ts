import { canonicalFromDraft, canonicalFromSources, type Canonical, type CanonicalSentence } from "./plan-canonical";
import { SupportIndex } from "./plan-claims";
import { fitSegments, type FitResult } from "./plan-fit";
import { chooseMedia } from "./plan-media";
import type {
  BuildInputValue,
  BuildResultValue,
  Claim,
  InputDestination,
  MediaChoice,
  ModelDraft,
  OutputProfile,
  PlanContext,
  ResultDestination,
  ReviewFlag,
} from "./plan-types";
import { measureFor } from "./profiles";
import { clipGraphemes, type Sentence, joinSentences, splitSentences } from "./text";

export interface PlanOutcome {
  result: BuildResultValue;
  /** Per included destination, the media ids it attaches (in order), for committing the plan. */
  mediaIds: Record<string, string[]>;
  /** Nothing could be planned: no text and no media anywhere. */
  empty: boolean;
}

/** Shares of a profile's room to fill, tried in turn: the segmenter needs some room for packing. */
const FILLS = [0.9, 0.8, 0.7, 0.6, 0.5];
const CLIP_FLAG = 120;

/**
 * The plan of a build: canonical text, then per destination an output profile, segments within its
 * limits, media, claims and flags; destinations that cannot take anything are skipped with a reason.
 * Pure and deterministic: no clock, no randomness, no network. Cost is linear in the sources (each
 * is scanned a constant number of times) plus, per destination, work bounded by the canonical budget.
 * A model draft, when given, replaces the planner's own wording but is held to the same checks.
 */
export function planBuild(input: BuildInputValue, context: PlanContext, draft: ModelDraft | null = null): PlanOutcome {
  const flags: ReviewFlag[] = [];
  for (const [sourceId, why] of Object.entries(context.unreadable)) {
    flags.push({ account_id: "", field: `sources.${sourceId}`, message: why, severity: "warning" });
  }
  const index = new SupportIndex(input.sources);
  const canonical = draft ? canonicalFromDraft(draft, index) : canonicalFromSources(input, index);
  const canonicalText = joinSentences(canonical.sentences);
  for (const s of canonical.sentences) {
    if (s.claim.status === "unsupported") {
      flags.push({
        account_id: "",
        field: "canonical_text",
        message: `No source supports this sentence; check it or add a source: "${clipGraphemes(s.text, CLIP_FLAG)}"`,
        severity: "warning",
      });
    }
  }
  if (canonical.leftOut > 0) {
    flags.push({
      account_id: "",
      field: "canonical_text",
      message: `${canonical.leftOut} source sentence(s) did not fit the canonical text and were left out.`,
      severity: "info",
    });
  }

  const inactive = new Set(context.inactive_account_ids);
  const drafted = new Map((draft?.destinations ?? []).map((d) => [d.account_id, d.text]));
  const destinations: ResultDestination[] = [];
  const skipped: BuildResultValue["skipped"] = [];
  const choices: BuildResultValue["direction"]["destinations"] = [];
  const mediaIds: Record<string, string[]> = {};
  const title = titleOf(input.idea, canonical.sentences);

  for (const dest of input.destinations) {
    const skip = (reason: string) => {
      skipped.push({ account_id: dest.account_id, platform: dest.platform, reason });
      choices.push({ account_id: dest.account_id, include: false, reason });
    };
    if (inactive.has(dest.account_id)) {
      skip("The account is inactive or disconnected; reconnect it to plan for it.");
      continue;
    }
    if (dest.allowed_output_profiles.length === 0) {
      skip(`Herald has no output profile for ${dest.platform}.`);
      continue;
    }
    const planned = planDestination(dest, input, context, canonical, drafted.get(dest.account_id) ?? null, index, title);
    flags.push(...planned.flags);
    if ("skip" in planned) {
      skip(planned.skip);
      continue;
    }
    destinations.push(planned.destination);
    mediaIds[dest.account_id] = planned.mediaIds;
    choices.push({
      account_id: dest.account_id,
      include: true,
      reason: `Planned as ${planned.destination.archetype} (${planned.destination.output_profile}).`,
    });
  }
  for (const accountId of drafted.keys()) {
    if (!input.destinations.some((d) => d.account_id === accountId)) {
      flags.push({
        account_id: "",
        field: "model",
        message: "The model wrote for a destination the build does not have; that text was ignored.",
        severity: "info",
      });
    }
  }

  const d = input.direction;
  const claims = canonical.sentences.map((s) => s.claim);
  const result: BuildResultValue = {
    canonical_text: canonicalText,
    destinations,
    direction: {
      angle: d.angle ?? "A plain account of what the sources say",
      audience: d.audience ?? "The accounts' current followers",
      canonical_text: canonicalText,
      outcome: d.outcome ?? "inform",
      route: draft ? `model:${draft.model}` : "planner",
      thesis: draft?.thesis?.trim() || canonical.sentences[0]?.text || "",
      claims,
      factual_kernel: claims
        .filter((c) => c.status === "supported")
        .slice(0, 10)
        .map((c) => c.text),
      media: overallMedia(input, context),
      destinations: choices,
    },
    review_flags: flags,
    skipped,
    sources: input.sources.map((s) => ({ id: s.id, kind: s.kind, label: s.label, publishable: s.publishable })),
  };
  return { result, mediaIds, empty: canonicalText === "" && result.direction.media.length === 0 };
}

type DestinationPlan = { destination: ResultDestination; mediaIds: string[]; flags: ReviewFlag[] } | { skip: string; flags: ReviewFlag[] };

function planDestination(
  dest: InputDestination,
  input: BuildInputValue,
  context: PlanContext,
  canonical: Canonical,
  draftedText: string | null,
  index: SupportIndex,
  title: string | null,
): DestinationPlan {
  const flags: ReviewFlag[] = [];
  const measure = measureFor(dest.platform);
  const profiles = [...dest.allowed_output_profiles].sort((a, b) => a.max_segments - b.max_segments || a.key.localeCompare(b.key));
  const largest = profiles[profiles.length - 1];

  // The sentences this destination says: the model's wording for it, or the canonical text.
  let sentences: CanonicalSentence[] = canonical.sentences;
  let rank = canonical.rank;
  if (draftedText !== null) {
    const own = canonicalFromDraft({ model: "", canonical_text: draftedText, destinations: [] }, index);
    sentences = own.sentences;
    rank = own.rank;
  }
  // A sentence holding a URL longer than a whole segment can never be posted here: leave it out.
  const postable = sentences.map((s) => fitSegments(s.text, largest.text_limit, Number.MAX_SAFE_INTEGER, measure).ok);
  const tooLong = postable.filter((ok) => !ok).length;
  if (tooLong > 0) {
    flags.push({
      account_id: dest.account_id,
      field: "segments",
      message: `${tooLong} sentence(s) hold a link longer than one ${dest.platform} post and were left out.`,
      severity: "warning",
    });
  }
  const text = joinSentences(sentences.filter((_, i) => postable[i]));

  // The smallest profile the whole text fits; else the largest, with the best sentences that fit it.
  let profile: OutputProfile = largest;
  let fit: FitResult | null = null;
  for (const p of profiles) {
    const attempt = fitSegments(text, p.text_limit, p.max_segments, measure);
    if (p === largest || (attempt.ok && !attempt.shortened)) {
      profile = p;
      fit = attempt;
      break;
    }
  }
  fit ??= fitSegments(text, largest.text_limit, largest.max_segments, measure);
  let leftOut = 0;
  if (fit.ok && fit.shortened) {
    // Keep the best sentences that fill most of the profile; packing into segments wastes some room,
    // so fill less until the segments fit (a bounded number of tries, each bounded by the profile).
    const all = sentences;
    for (const fill of FILLS) {
      const capacity = Math.floor(profile.text_limit * profile.max_segments * fill);
      const keep = new Uint8Array(all.length);
      let used = 0;
      leftOut = 0;
      for (const i of rank) {
        if (!postable[i]) continue;
        const length = measure(all[i].text) + 2;
        if (used + length <= capacity) {
          keep[i] = 1;
          used += length;
        } else leftOut++;
      }
      sentences = all.filter((_, i) => keep[i]);
      fit = fitSegments(joinSentences(sentences), profile.text_limit, profile.max_segments, measure);
      if (!fit.ok || !fit.shortened) break;
    }
  } else {
    sentences = sentences.filter((_, i) => postable[i]);
  }
  if (!fit.ok) return { skip: `The text cannot be split for ${dest.platform}: ${fit.reason}`, flags };

  const media = chooseMedia(dest.account_id, dest.platform, profile, input.sources, context.media, input.direction.media_preference);
  flags.push(...media.flags);
  if (fit.segments.length === 0 && media.choices.length === 0) {
    return { skip: `Nothing publishable in a format ${dest.platform} takes: no text, and no media it accepts.`, flags };
  }
  if (leftOut > 0 || fit.shortened) {
    flags.push({
      account_id: dest.account_id,
      field: "segments",
      message: `Text shortened to fit ${profile.max_segments} × ${profile.text_limit} characters: ${leftOut} sentence(s) left out${fit.shortened ? ", and the end cut" : ""}.`,
      severity: "warning",
    });
  }
  for (const avoided of avoidancesUsed(fit.segments, dest)) {
    flags.push({
      account_id: dest.account_id,
      field: "segments",
      message: `The voice ${dest.voice!.name} avoids "${avoided}", and the text uses it.`,
      severity: "warning",
    });
  }
  const claims: Claim[] = sentences.map((s) => s.claim);
  for (const c of claims) {
    if (c.status === "unsupported" && draftedText !== null) {
      flags.push({
        account_id: dest.account_id,
        field: "segments",
        message: `No source supports this sentence: "${clipGraphemes(c.text, CLIP_FLAG)}"`,
        severity: "warning",
      });
    }
  }
  const segments = fit.segments.length > 0 ? fit.segments : [""];
  const hasTitles = dest.platform === "webhook";
  const archetype = profile.max_segments === 1 ? "single_post" : hasTitles ? "document" : segments.length > 1 ? "thread" : "single_post";
  const notes: string[] = [];
  if (segments.length > 1) notes.push(`Posted as ${segments.length} connected segments.`);
  if (leftOut > 0 || fit.shortened) notes.push("Part of the canonical text is not in this version; consider a follow-up post.");
  return {
    destination: {
      account_id: dest.account_id,
      platform: dest.platform,
      archetype,
      objective: input.direction.outcome ?? "inform",
      output_profile: profile.key,
      preview: clipGraphemes(segments[0], 140),
      claims,
      follow_up_notes: notes,
      media: media.choices,
      segments: segments.map((body, i) => ({ title: hasTitles && i === 0 ? title : null, body, description: null })),
      warnings: media.refused,
    },
    mediaIds: media.mediaIds,
    flags,
  };
}

/** Voice avoidances (case-insensitive) found in the planned text. */
function avoidancesUsed(segments: string[], dest: InputDestination): string[] {
  if (!dest.voice) return [];
  const text = segments.join("\n").toLowerCase();
  return dest.voice.definition.avoidances.filter((a) => a.trim() !== "" && text.includes(a.trim().toLowerCase()));
}

/** The build's title: the idea's first sentence, else the thesis; clipped. */
function titleOf(idea: string | null, sentences: readonly Sentence[]): string | null {
  const first = (idea ? splitSentences(idea)[0]?.text : undefined) ?? sentences[0]?.text;
  return first ? clipGraphemes(first, 100) : null;
}

function overallMedia(input: BuildInputValue, context: PlanContext): MediaChoice[] {
  return input.sources.flatMap((s, i) => {
    const item = s.kind === "media" ? context.media[s.id] : undefined;
    if (!item || !s.publishable) return [];
    return [{ brief: item.alt_text?.trim() || s.label, role: i === 0 ? "lead" : "supporting", source_ref: s.id, treatment: "attach as is" }];
  });
}

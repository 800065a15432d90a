/**
 * The planner's input and output, shaped exactly as SPEC.md 2.6 stores them in Build.input and
 * Build.result (snake_case), so a plan is saved and served without translation.
 */

export interface OutputProfile {
  key: string;
  allowed_mimes: string[];
  max_segments: number;
  media_max_count: number;
  /** Per segment, counted as the platform counts (graphemes; Mastodon counts a URL as 23). */
  text_limit: number;
}

export interface VoiceSnapshot {
  id: string;
  name: string;
  revision: number;
  definition: { avoidances: string[]; examples: { body: string; platform: string }[]; guidance: string; identity: string; language: string };
}

export interface InputDestination {
  account_id: string;
  label: string;
  platform: string;
  allowed_output_profiles: OutputProfile[];
  voice: VoiceSnapshot | null;
}

export interface Direction {
  angle: string | null;
  audience: string | null;
  media_preference: string | null;
  outcome: string | null;
  tone_adjustment: string | null;
}

export type SourceKind = "text" | "url" | "media";

export interface InputSource {
  id: string;
  kind: SourceKind;
  label: string;
  mime_type: string | null;
  /** Text as read (for a URL: after fetching); null when there is none or it could not be read. */
  text: string | null;
  /** Whether the source may be quoted or attached; an unpublishable one only supports claims. */
  publishable: boolean;
}

export type BuildInputValue = {
  destination_policy: string;
  destinations: InputDestination[];
  direction: Direction;
  idea: string | null;
  sources: InputSource[];
};

/** Facts the planner needs beyond Build.input, gathered by the caller (never fetched by the planner). */
export interface PlanContext {
  /** Accounts that are inactive or disconnected now (they are skipped with a reason). */
  inactive_account_ids: string[];
  /** Media items behind `media` sources, by source id. */
  media: Record<string, { media_id: string; media_type: "image" | "video" | "audio"; mime_type: string; size: number; alt_text: string | null }>;
  /** Sources that could not be read, with why (they become review flags). */
  unreadable: Record<string, string>;
}

export interface Claim {
  text: string;
  /** `supported` (rests on the listed sources) or `unsupported` (no source says it: flagged). */
  status: "supported" | "unsupported";
  source_refs: string[];
}

export interface MediaChoice {
  brief: string;
  role: string;
  source_ref: string | null;
  treatment: string;
}

export interface PlannedSegment {
  title: string | null;
  body: string;
  description: string | null;
}

export interface ResultDestination {
  account_id: string;
  platform: string;
  archetype: string;
  objective: string;
  output_profile: string;
  preview: string;
  claims: Claim[];
  follow_up_notes: string[];
  media: MediaChoice[];
  segments: PlannedSegment[];
  warnings: string[];
}

export interface ReviewFlag {
  /** The destination concerned, or "" for the build as a whole. */
  account_id: string;
  field: string;
  message: string;
  severity: "info" | "warning" | "error";
}

export type BuildResultValue = {
  canonical_text: string;
  destinations: ResultDestination[];
  direction: {
    angle: string;
    audience: string;
    canonical_text: string;
    outcome: string;
    route: string;
    thesis: string;
    claims: Claim[];
    factual_kernel: string[];
    media: MediaChoice[];
    destinations: { account_id: string; include: boolean; reason: string }[];
  };
  review_flags: ReviewFlag[];
  skipped: { account_id: string; platform: string; reason: string }[];
  sources: { id: string; kind: string; label: string; publishable: boolean }[];
};

/**
 * What a language model proposed (already shape-checked): the planner holds it to the same limits and
 * source checks as its own text, repairing what it can and flagging the rest.
 */
export interface ModelDraft {
  model: string;
  canonical_text: string;
  thesis?: string | null;
  destinations: { account_id: string; text: string }[];
}

/** What discovery learns from, gathered from the workspace (lib/discovery/signals.ts) and ranked without I/O. */
export interface Signal {
  kind: "publication" | "content" | "media" | "build" | "expertise" | "opinion";
  id: string;
  /** When it happened (ISO), or null for standing facts such as the voice's expertise. */
  date: string | null;
  title: string;
  text: string;
  /** Measured engagement (likes + reposts + replies) where known. */
  engagement: number | null;
  /** A media item's type, so treatments know what can be attached. */
  media_type?: string;
}

export interface Angle {
  id: string;
  label: string;
  approach: string;
  thesis: string;
}

export interface PlatformTreatment {
  platform: string;
  format: string;
  media: string;
  objective: string;
  rationale: string;
}

export interface Opportunity {
  id: string;
  title: string;
  hook: string;
  why_it_fits: string;
  why_now: string;
  signal_date: string | null;
  angles: Angle[];
  platform_treatments: PlatformTreatment[];
}

import { clipGraphemes, contentWords, splitSentences } from "../builds/text";
import type { Angle, Opportunity, PlatformTreatment, Signal } from "./types";

/** Cards per answer, and the text read per signal: the cost is linear in the (bounded) signals. */
export const MAX_CARDS = 5;
const TEXT_PER_SIGNAL = 2_000;
const DAY_MS = 86_400_000;

/** FNV-1a: a stable card id from its topic, so the same state gives the same ids. */
function stableId(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `opp_${h.toString(36).padStart(7, "0")}`;
}

const KIND_WEIGHT: Record<Signal["kind"], number> = { publication: 1, content: 1, media: 0.6, build: 0.8, expertise: 1.5, opinion: 1.5 };

interface Topic {
  word: string;
  score: number;
  signals: Signal[];
}

/**
 * Idea cards from the workspace's own signals, without a model: topics are the content words the
 * signals share, scored by how the signals did (engagement), how recent they are (relative to the
 * newest signal, not the clock, so the same state gives the same cards) and what kind they are (the
 * voice's expertise and opinions count most). Pure and deterministic.
 */
export function rankOpportunities(signals: readonly Signal[], platforms: readonly string[]): Opportunity[] {
  const newest = signals.reduce((max, s) => (s.date && s.date > max ? s.date : max), "");
  const reference = newest ? Date.parse(newest) : 0;
  const topics = new Map<string, Topic>();
  for (const s of signals) {
    const recency = s.date && reference ? 1 / (1 + (reference - Date.parse(s.date)) / (30 * DAY_MS)) : 0.5;
    const weight = KIND_WEIGHT[s.kind] * (1 + Math.log2(1 + Math.max(0, s.engagement ?? 0))) * recency;
    for (const word of new Set(contentWords(`${s.title} ${s.text.slice(0, TEXT_PER_SIGNAL)}`))) {
      let topic = topics.get(word);
      if (!topic) topics.set(word, (topic = { word, score: 0, signals: [] }));
      topic.score += weight;
      topic.signals.push(s);
    }
  }
  const ranked = [...topics.values()].sort((a, b) => b.score - a.score || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  // One card per distinct lead signal: two words of one post are one idea, not two.
  const cards: Opportunity[] = [];
  const leads = new Set<string>();
  for (const topic of ranked) {
    if (cards.length === MAX_CARDS) break;
    const lead = leadSignal(topic);
    if (leads.has(lead.id)) continue;
    leads.add(lead.id);
    cards.push(card(topic, lead, platforms, signals));
  }
  return cards;
}

function leadSignal(topic: Topic): Signal {
  return [...topic.signals].sort(
    (a, b) => (b.engagement ?? -1) - (a.engagement ?? -1) || (b.date ?? "").localeCompare(a.date ?? "") || a.id.localeCompare(b.id),
  )[0];
}

const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

function card(topic: Topic, lead: Signal, platforms: readonly string[], all: readonly Signal[]): Opportunity {
  const word = topic.word;
  const Word = capital(word);
  const sentence = splitSentences(lead.text.slice(0, TEXT_PER_SIGNAL)).find((s) => s.text.toLowerCase().includes(word))?.text ?? lead.title;
  const dated = topic.signals.filter((s) => s.date).sort((a, b) => b.date!.localeCompare(a.date!));
  const measured = topic.signals.filter((s) => s.engagement !== null && s.engagement > 0);
  const expertise = topic.signals.find((s) => s.kind === "expertise" || s.kind === "opinion");
  const media = topic.signals.find((s) => s.kind === "media") ?? all.find((s) => s.kind === "media");
  const fits = [
    `${topic.signals.length} of your own signals mention ${word}`,
    measured.length ? `"${clipGraphemes(measured[0].title, 80)}" drew ${measured[0].engagement} engagements` : "",
    expertise ? `your default voice lists "${clipGraphemes(expertise.text, 80)}" as ${expertise.kind}` : "",
  ].filter(Boolean);
  const angles: Angle[] = [
    { id: "explain", label: "Explain it", approach: "A short explainer for people new to it", thesis: `What ${word} means for your audience, in plain words.` },
    { id: "evidence", label: "Show the evidence", approach: "Lead with a figure or result from your own work", thesis: clipGraphemes(sentence, 200) },
    {
      id: "opinion",
      label: "Take a position",
      approach: "State your view and why",
      thesis: expertise?.kind === "opinion" ? clipGraphemes(expertise.text, 200) : `Where you stand on ${word}, and what you would tell a peer.`,
    },
    { id: "behind", label: "Behind the scenes", approach: "How your team actually works on it", thesis: `How we handle ${word} day to day.` },
  ];
  return {
    id: stableId(word),
    title: `${Word}: ${clipGraphemes(lead.title || sentence, 80)}`,
    hook: clipGraphemes(sentence, 200),
    why_it_fits: `${fits.join("; ")}.`,
    why_now: dated.length
      ? `Your latest signal on it is from ${dated[0].date!.slice(0, 10)}${measured.length ? " and it found an audience" : ""}; follow up while it is fresh.`
      : "It is part of what your voice stands for; it has not been covered recently.",
    signal_date: dated[0]?.date ?? null,
    angles,
    platform_treatments: platforms.map((p) => treatment(p, word, media)),
  };
}

export function treatment(platform: string, word: string, media: Signal | undefined): PlatformTreatment {
  const withMedia = media
    ? `Attach ${media.title || "a library item"}${media.media_type ? ` (${media.media_type})` : ""}`
    : "Text only; no matching media in the library";
  switch (platform) {
    case "bluesky":
      return {
        platform,
        format: "thread",
        media: withMedia,
        objective: "conversation",
        rationale: `Bluesky posts hold 300 characters: a short thread gives ${word} room and invites replies.`,
      };
    case "mastodon":
      return {
        platform,
        format: "post",
        media: withMedia,
        objective: "discussion",
        rationale: `One considered status with hashtags on ${word} travels furthest on Mastodon.`,
      };
    default:
      return {
        platform,
        format: "document",
        media: withMedia,
        objective: "inform",
        rationale: `A webhook receives the whole text: a complete write-up on ${word}.`,
      };
  }
}

import { z } from "zod";
import { chatJson, type ModelAnswer, type ModelCall } from "../builds/model";
import { clipGraphemes } from "../builds/text";
import type { Database } from "../db/client";
import { MAX_CARDS, rankOpportunities, treatment } from "./rank";
import type { Opportunity, Signal } from "./types";

const text = (max: number) => z.string().max(max);

/** What the model must answer: bounded, so a runaway answer is refused rather than passed on. */
export const DiscoveryAnswer = z.object({
  opportunities: z
    .array(
      z.object({
        title: text(300),
        hook: text(1000),
        why_it_fits: text(2000),
        why_now: text(2000),
        signal_date: z.string().max(40).nullable().optional(),
        angles: z.array(z.object({ label: text(200), approach: text(1000), thesis: text(1000) })).max(10),
        platform_treatments: z
          .array(z.object({ platform: text(50), format: text(100), media: text(500), objective: text(200), rationale: text(1000) }))
          .max(10),
      }),
    )
    .min(1)
    .max(10),
});

const PROMPT_SIGNALS = 60;

/**
 * Ask the model for idea cards from the same signals the ranker uses (bounded in number and size),
 * then hold its answer to the same shape the ranker guarantees: at most MAX_CARDS cards, 3–5 angles
 * each (filled from the ranker's when short), exactly one treatment per requested platform, and a
 * signal_date only when it is the date of a real signal. It only ever suggests; nothing is written.
 */
export async function discoverWithModel(
  db: Database,
  call: ModelCall,
  workspaceId: string,
  signals: readonly Signal[],
  platforms: readonly string[],
): Promise<ModelAnswer<Opportunity[]>> {
  const listed = signals
    .slice(0, PROMPT_SIGNALS)
    .map(
      (s) =>
        `- [${s.kind}${s.date ? ` ${s.date.slice(0, 10)}` : ""}${s.engagement !== null ? `, ${s.engagement} engagements` : ""}] ${clipGraphemes(s.title, 120)}: ${clipGraphemes(s.text, 300)}`,
    );
  const answer = await chatJson(
    db,
    call,
    { workspaceId, buildId: null, operation: "discovery" },
    [
      {
        role: "system",
        content:
          'You suggest what a team could publish next, from its own signals only. Never write the posts. Answer with JSON only: {"opportunities": [{"title", "hook", "why_it_fits", "why_now", "signal_date" (a date from the signals or null), "angles": [{"label", "approach", "thesis"}] (3 to 5), "platform_treatments": [{"platform", "format", "media", "objective", "rationale"}] (one per platform)}]}.',
      },
      { role: "user", content: `Platforms: ${platforms.join(", ")}\nSignals:\n${listed.join("\n")}` },
    ],
    DiscoveryAnswer,
  );
  if (!answer.ok) return answer;
  const fallback = rankOpportunities(signals, platforms);
  const dates = new Set(signals.flatMap((s) => (s.date ? [s.date, s.date.slice(0, 10)] : [])));
  const cards = answer.value.opportunities.slice(0, MAX_CARDS).map((o, i): Opportunity => {
    const spare = fallback[i % Math.max(1, fallback.length)]?.angles ?? [];
    const angles = o.angles.slice(0, 5).map((a, j) => ({ id: `angle_${j + 1}`, ...a }));
    for (const a of spare) if (angles.length < 3) angles.push({ ...a, id: `angle_${angles.length + 1}` });
    return {
      id: `opp_m${i + 1}`,
      title: o.title,
      hook: o.hook,
      why_it_fits: o.why_it_fits,
      why_now: o.why_now,
      signal_date: o.signal_date && dates.has(o.signal_date) ? o.signal_date : null,
      angles,
      platform_treatments: platforms.map(
        (p) =>
          o.platform_treatments.find((t) => t.platform === p) ??
          treatment(
            p,
            "this idea",
            signals.find((s) => s.kind === "media"),
          ),
      ),
    };
  });
  return { ok: true, value: cards };
}

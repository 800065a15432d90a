import { planBuild } from "../lib/builds/plan";
import type { BuildInputValue, PlanContext } from "../lib/builds/plan-types";
import { outputProfiles } from "../lib/builds/profiles";
import { fmt, measure, printTable } from "./stats";

/**
 * The build planner's time for a 2,000-word source over ten destinations, and for a source ten times
 * as long (the goal: at most 12× the time, i.e. linear). Pure planning only: no database, no network.
 * `npx tsx bench/publication-build-planner.ts [runs]`
 */

const runs = Number(process.argv[2] ?? 30);
const VOCABULARY =
  "herald plans every destination from sources teams write threads posts media limits voice claims review launch trial numbers growth audience platform segment canonical draft".split(
    " ",
  );

/** A deterministic article of `words` words: sentences of 8–24 words, a figure now and then, paragraphs of 5 sentences. */
function article(words: number): string {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const out: string[] = [];
  let sentence: string[] = [];
  let sentences = 0;
  for (let i = 0; i < words; i++) {
    sentence.push(next() % 17 === 0 ? String(next() % 1000) : VOCABULARY[next() % VOCABULARY.length]);
    if (sentence.length >= 8 + (next() % 17) || i === words - 1) {
      out.push(sentence.join(" ").replace(/^./, (c) => c.toUpperCase()) + ".");
      sentence = [];
      if (++sentences % 5 === 0) out.push("\n\n");
    }
  }
  return out.join(" ");
}

function input(words: number): BuildInputValue {
  const platforms = ["bluesky", "mastodon", "webhook", "bluesky", "mastodon", "bluesky", "mastodon", "webhook", "bluesky", "mastodon"] as const;
  return {
    destination_policy: "explicit",
    idea: "Herald plans every destination from the sources a team already has.",
    direction: { angle: "launch", audience: "teams", media_preference: null, outcome: "inform", tone_adjustment: null },
    sources: [{ id: "src_1", kind: "text", label: "Article", mime_type: "text/plain", text: article(words), publishable: true }],
    destinations: platforms.map((p, i) => ({
      account_id: `acc_${i}`,
      label: `${p} ${i}`,
      platform: p,
      allowed_output_profiles: outputProfiles(p, p === "mastodon" && i > 5 ? 1000 : null),
      voice: {
        id: "vop_1",
        name: "House",
        revision: 1,
        definition: { avoidances: ["game-changer", "synergy"], examples: [], guidance: "", identity: "", language: "en" },
      },
    })),
  };
}

const context: PlanContext = { inactive_account_ids: [], media: {}, unreadable: {} };

async function main() {
  const small = input(2_000);
  const large = input(20_000);
  const one = await measure(async () => planBuild(small, context), { n: runs, warmup: 5 });
  const ten = await measure(async () => planBuild(large, context), { n: runs, warmup: 3 });
  printTable([
    { source: "2,000 words × 10 destinations", p50: fmt(one.p50), mean: fmt(one.mean), p99: fmt(one.p99), runs: one.n },
    { source: "20,000 words × 10 destinations", p50: fmt(ten.p50), mean: fmt(ten.mean), p99: fmt(ten.p99), runs: ten.n },
  ]);
  const ratio = ten.p50 / one.p50;
  console.log(`ratio (p50, 10× source / 1× source): ${ratio.toFixed(2)}× (goal ≤ 12×) ${ratio <= 12 ? "OK" : "OVER"}`);
}

await main();

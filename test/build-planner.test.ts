import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planBuild } from "../lib/builds/plan";
import { fitSegments } from "../lib/builds/plan-fit";
import type { BuildInputValue, InputDestination, PlanContext } from "../lib/builds/plan-types";
import { measureFor, outputProfiles } from "../lib/builds/profiles";
import { splitSentences } from "../lib/builds/text";
import { graphemeLength } from "../lib/providers/text";
import { segmentLimit } from "../lib/publishing/limits";

/** The planner is pure: these tests call it directly, with no database, queue or network. */

const noContext: PlanContext = { inactive_account_ids: [], media: {}, unreadable: {} };
const direction = { angle: null, audience: null, media_preference: null, outcome: null, tone_adjustment: null };

function destination(
  accountId: string,
  platform: "bluesky" | "mastodon" | "webhook",
  voice: InputDestination["voice"] = null,
  limit: number | null = null,
): InputDestination {
  return { account_id: accountId, label: `${platform} account`, platform, allowed_output_profiles: outputProfiles(platform, limit), voice };
}

function input(over: Partial<BuildInputValue> = {}): BuildInputValue {
  return { destination_policy: "explicit", destinations: [destination("acc_b", "bluesky")], direction, idea: null, sources: [], ...over };
}

const ARTICLE = [
  "Herald now plans a publication for every destination at once.",
  "The planner splits text within each platform's limit, so a Bluesky thread never has a post over 300 characters.",
  "In our trial, 42 teams cut their drafting time by half.",
  "Media keep their alt text.",
].join(" ");

const noSpace = (s: string) => s.replace(/\s+/g, "");

describe("sentences", () => {
  it("splits at terminators followed by space and at line breaks, never inside URLs or numbers", () => {
    const s = splitSentences("Version 3.5 is out. See https://example.com/a.b?c=d. Great!\nNew line\n\nNew paragraph 。次の文。");
    expect(s.map((x) => x.text)).toEqual(["Version 3.5 is out.", "See https://example.com/a.b?c=d.", "Great!", "New line", "New paragraph 。", "次の文。"]);
    expect(s.map((x) => x.paragraph)).toEqual([0, 0, 0, 0, 1, 1]);
  });
});

describe("planning a build", () => {
  it("builds canonical text from the idea and the sources, with claims naming their sources", () => {
    const { result } = planBuild(
      input({
        idea: "Herald plans every destination at once.",
        sources: [{ id: "src_1", kind: "text", label: "Launch notes", mime_type: "text/plain", text: ARTICLE, publishable: true }],
      }),
      noContext,
    );
    expect(result.canonical_text.startsWith("Herald plans every destination at once.")).toBe(true);
    expect(result.canonical_text).toContain("42 teams");
    const sourced = result.direction.claims.filter((c) => c.text.includes("42 teams"));
    expect(sourced).toEqual([{ text: "In our trial, 42 teams cut their drafting time by half.", status: "supported", source_refs: ["src_1"] }]);
    // The idea's sentence is backed by the notes (they share its words).
    expect(result.direction.claims[0]).toMatchObject({ status: "supported", source_refs: ["src_1"] });
    expect(result.direction.route).toBe("planner");
    expect(result.sources).toEqual([{ id: "src_1", kind: "text", label: "Launch notes", publishable: true }]);
  });

  it("flags a sentence no source supports instead of silently keeping it", () => {
    const { result } = planBuild(
      input({
        idea: "Our competitors are all bankrupt.",
        sources: [{ id: "src_1", kind: "text", label: "Notes", mime_type: null, text: ARTICLE, publishable: true }],
      }),
      noContext,
    );
    expect(result.direction.claims[0]).toEqual({ text: "Our competitors are all bankrupt.", status: "unsupported", source_refs: [] });
    expect(result.review_flags).toContainEqual(
      expect.objectContaining({ field: "canonical_text", severity: "warning", message: expect.stringContaining("No source supports") }),
    );
  });

  it("quotes only publishable sources; an unpublishable one still supports claims", () => {
    const { result } = planBuild(
      input({
        idea: "Teams halved their drafting time in the trial.",
        sources: [{ id: "src_private", kind: "text", label: "Internal memo", mime_type: null, text: ARTICLE, publishable: false }],
      }),
      noContext,
    );
    expect(result.canonical_text).toBe("Teams halved their drafting time in the trial.");
    expect(result.direction.claims[0].source_refs).toEqual(["src_private"]);
  });

  it("fits every destination's segments within its profile and picks the smallest profile that holds the text", () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} explains one more detail of the launch plan.`).join(" ");
    const { result } = planBuild(
      input({
        idea: "Launch plan.",
        destinations: [destination("acc_b", "bluesky"), destination("acc_m", "mastodon", null, 1000), destination("acc_w", "webhook")],
        sources: [{ id: "src_1", kind: "text", label: "Plan", mime_type: null, text: long, publishable: true }],
      }),
      noContext,
    );
    const byId = Object.fromEntries(result.destinations.map((d) => [d.account_id, d]));
    expect(byId.acc_b.output_profile).toBe("bluesky.thread");
    expect(byId.acc_w.output_profile).toBe("webhook.document");
    expect(byId.acc_w.segments).toHaveLength(1);
    expect(byId.acc_w.segments[0].title).toBe("Launch plan.");
    for (const d of result.destinations) {
      const profile = outputProfiles(d.platform as "bluesky", d.platform === "mastodon" ? 1000 : null).find((p) => p.key === d.output_profile)!;
      expect(d.segments.length).toBeLessThanOrEqual(profile.max_segments);
      for (const s of d.segments) expect(measureFor(d.platform)(s.body)).toBeLessThanOrEqual(profile.text_limit);
      expect(d.preview.length).toBeGreaterThan(0);
    }
    // Bluesky holds ten posts of 300: the 40 sentences do not all fit, and the plan says so.
    expect(result.review_flags).toContainEqual(
      expect.objectContaining({ account_id: "acc_b", field: "segments", message: expect.stringContaining("Text shortened to fit") }),
    );
    expect(byId.acc_b.follow_up_notes.join(" ")).toContain("not in this version");
  });

  it("says a sentence once however often the sources repeat it", () => {
    const { result } = planBuild(
      input({
        idea: "Herald keeps going.",
        sources: [
          { id: "src_1", kind: "text", label: "Loop", mime_type: null, text: "Herald keeps going. ".repeat(500) + "Teams like it.", publishable: true },
        ],
      }),
      noContext,
    );
    expect(result.canonical_text).toBe("Herald keeps going.\n\nTeams like it.");
  });

  it("a short text is a single post", () => {
    const { result } = planBuild(input({ idea: "Short and sweet." }), noContext);
    expect(result.destinations[0]).toMatchObject({
      output_profile: "bluesky.post",
      archetype: "single_post",
      segments: [{ title: null, body: "Short and sweet.", description: null }],
    });
  });

  it("flags a voice avoidance the text uses", () => {
    const voice = {
      id: "vop_1",
      name: "Calm",
      revision: 3,
      definition: { avoidances: ["game-changer"], examples: [], guidance: "", identity: "", language: "en" },
    };
    const { result } = planBuild(input({ idea: "This is a game-changer for teams.", destinations: [destination("acc_b", "bluesky", voice)] }), noContext);
    expect(result.review_flags).toContainEqual(expect.objectContaining({ account_id: "acc_b", message: expect.stringContaining('avoids "game-changer"') }));
  });

  it("chooses media within the platform's rules, carrying alt text and flagging media without it", () => {
    const context: PlanContext = {
      inactive_account_ids: [],
      unreadable: {},
      media: {
        src_img: { media_id: "med_1", media_type: "image", mime_type: "image/png", size: 1000, alt_text: "A chart of drafting time" },
        src_vid: { media_id: "med_2", media_type: "video", mime_type: "video/mp4", size: 1000, alt_text: null },
        src_img2: { media_id: "med_3", media_type: "image", mime_type: "image/jpeg", size: 1000, alt_text: null },
      },
    };
    const sources = [
      { id: "src_img", kind: "media" as const, label: "chart.png", mime_type: "image/png", text: null, publishable: true },
      { id: "src_vid", kind: "media" as const, label: "clip.mp4", mime_type: "video/mp4", text: null, publishable: true },
      { id: "src_img2", kind: "media" as const, label: "private.jpg", mime_type: "image/jpeg", text: null, publishable: false },
    ];
    const outcome = planBuild(
      input({ idea: "Look at this.", sources, destinations: [destination("acc_b", "bluesky"), destination("acc_m", "mastodon")] }),
      context,
    );
    const bluesky = outcome.result.destinations.find((d) => d.account_id === "acc_b")!;
    expect(bluesky.media).toEqual([{ brief: "A chart of drafting time", role: "lead", source_ref: "src_img", treatment: "attach as is" }]);
    expect(bluesky.warnings.join(" ")).toContain("video/mp4");
    expect(outcome.mediaIds.acc_b).toEqual(["med_1"]);
    // Mastodon takes the image; the video cannot share a status with it.
    expect(outcome.mediaIds.acc_m).toEqual(["med_1"]);
    expect(outcome.result.destinations.find((d) => d.account_id === "acc_m")!.warnings.join(" ")).toMatch(/single video/);
    // The unpublishable image is never attached.
    expect(JSON.stringify(outcome.result.destinations)).not.toContain("src_img2");
  });

  it("flags media without alt text", () => {
    const context: PlanContext = {
      ...noContext,
      media: { src_v: { media_id: "med_9", media_type: "video", mime_type: "video/mp4", size: 10, alt_text: null } },
    };
    const { result } = planBuild(
      input({
        idea: "Clip.",
        destinations: [destination("acc_m", "mastodon")],
        sources: [{ id: "src_v", kind: "media", label: "clip.mp4", mime_type: "video/mp4", text: null, publishable: true }],
      }),
      context,
    );
    expect(result.review_flags).toContainEqual(expect.objectContaining({ account_id: "acc_m", field: "media.src_v.alt_text" }));
  });

  it("skips inactive accounts and destinations that can take nothing, with reasons", () => {
    const context: PlanContext = {
      inactive_account_ids: ["acc_off"],
      unreadable: {},
      media: { src_v: { media_id: "med_2", media_type: "video", mime_type: "video/mp4", size: 10, alt_text: "clip" } },
    };
    const outcome = planBuild(
      input({
        idea: null,
        destinations: [destination("acc_off", "mastodon"), destination("acc_b", "bluesky"), destination("acc_m", "mastodon")],
        sources: [{ id: "src_v", kind: "media", label: "clip.mp4", mime_type: "video/mp4", text: null, publishable: true }],
      }),
      context,
    );
    expect(outcome.result.skipped).toEqual([
      { account_id: "acc_off", platform: "mastodon", reason: expect.stringContaining("inactive") },
      { account_id: "acc_b", platform: "bluesky", reason: expect.stringContaining("Nothing publishable") },
    ]);
    expect(outcome.result.destinations.map((d) => d.account_id)).toEqual(["acc_m"]);
    expect(outcome.result.direction.destinations.map((d) => d.include)).toEqual([false, false, true]);
    expect(outcome.empty).toBe(false);
  });

  it("turns unreadable sources into review flags, and reports an empty plan", () => {
    const outcome = planBuild(
      input({ sources: [{ id: "src_u", kind: "url", label: "https://example.com", mime_type: null, text: null, publishable: true }] }),
      { ...noContext, unreadable: { src_u: "The page answered 404." } },
    );
    expect(outcome.result.review_flags).toContainEqual({ account_id: "", field: "sources.src_u", message: "The page answered 404.", severity: "warning" });
    expect(outcome.empty).toBe(true);
  });

  it("holds a model draft to the same limits and source checks", () => {
    const draft = {
      model: "stand-in",
      canonical_text: "Herald plans every destination. It also makes coffee.",
      destinations: [
        { account_id: "acc_b", text: "x".repeat(50) + " " + "Drafting time fell by half in the trial with 42 teams. ".repeat(20) },
        { account_id: "acc_ghost", text: "Hi" },
      ],
    };
    const { result } = planBuild(
      input({ sources: [{ id: "src_1", kind: "text", label: "Notes", mime_type: null, text: ARTICLE, publishable: true }] }),
      noContext,
      draft,
    );
    expect(result.direction.route).toBe("model:stand-in");
    expect(result.direction.claims.find((c) => c.text === "It also makes coffee.")).toMatchObject({ status: "unsupported" });
    const d = result.destinations[0];
    expect(d.segments.length).toBeLessThanOrEqual(10);
    for (const s of d.segments) expect(graphemeLength(s.body)).toBeLessThanOrEqual(300);
    expect(result.review_flags).toContainEqual(expect.objectContaining({ field: "model", message: expect.stringContaining("does not have") }));
  });

  it("leaves out a sentence with a link longer than a whole post, and says so", () => {
    const url = "https://example.com/" + "a".repeat(400);
    const { result } = planBuild(input({ idea: `Read this: ${url} now. And this short sentence.` }), noContext);
    expect(result.destinations[0].segments.map((s) => s.body).join(" ")).not.toContain(url);
    expect(result.review_flags).toContainEqual(expect.objectContaining({ message: expect.stringContaining("link longer than one bluesky post") }));
  });
});

// ---- Properties ----

const word = fc.oneof(
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }),
  fc.stringMatching(/^[a-z]{1,10}$/),
  fc.constantFrom("🙂", "👨‍👩‍👧‍👦", "e\u0301", "漢字かな交じり文", "Ünïcödé", "x".repeat(40), "supercalifragilisticexpialidocious"),
  fc.stringMatching(/^[a-z0-9]{1,20}$/).map((p) => `https://example.com/${p}`),
);
const separator = fc.constantFrom(" ", " ", " ", ". ", "! ", "\n", "\n\n", "。");
const text = fc.array(fc.tuple(word, separator), { minLength: 0, maxLength: 80 }).map((parts) => parts.map(([w, s]) => w + s).join(""));

describe("properties", () => {
  it("measureFor counts exactly as the adapter does (its ASCII shortcut included)", () => {
    const ascii = fc.string({ unit: fc.constantFrom(..."ab c.:/@\n\r\t-", "http://x.y", "https://example.com/p", "@a@b.social"), maxLength: 60 });
    fc.assert(
      fc.property(fc.oneof(ascii, text), fc.constantFrom("bluesky" as const, "mastodon" as const, "webhook" as const), (t, platform) => {
        expect(measureFor(platform)(t)).toBe(segmentLimit(platform).measure(t));
      }),
      { numRuns: 500 },
    );
  });

  it("fitSegments: every segment fits, at most max_segments, nothing lost or reordered, deterministic", () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom("bluesky", "mastodon", "webhook"),
        (t, limit, max, platform) => {
          const measure = measureFor(platform);
          const fit = fitSegments(t, limit, max, measure);
          expect(fitSegments(t, limit, max, measure)).toEqual(fit);
          if (!fit.ok) {
            // Only a URL longer than a whole segment can stop it.
            expect(fit.reason).toMatch(/URL/);
            return;
          }
          expect(fit.segments.length).toBeLessThanOrEqual(max);
          for (const s of fit.segments) expect(measure(s)).toBeLessThanOrEqual(limit);
          const joined = noSpace(fit.segments.join(""));
          if (fit.shortened) expect(noSpace(t).startsWith(joined)).toBe(true);
          else expect(joined).toBe(noSpace(t));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("planBuild: segments fit their profile, destination text keeps the canonical order, same input same plan", () => {
    const platforms = fc.constantFrom("bluesky" as const, "mastodon" as const, "webhook" as const);
    fc.assert(
      fc.property(
        fc.option(text, { nil: null }),
        fc.array(text, { maxLength: 3 }),
        fc.array(fc.tuple(platforms, fc.option(fc.integer({ min: 20, max: 2000 }), { nil: null })), { minLength: 1, maxLength: 4 }),
        (idea, texts, dests) => {
          const built = input({
            idea,
            sources: texts.map((t, i) => ({ id: `src_${i}`, kind: "text" as const, label: `s${i}`, mime_type: null, text: t, publishable: i % 2 === 0 })),
            destinations: dests.map(([p, limit], i) => destination(`acc_${i}`, p, null, limit)),
          });
          const a = planBuild(built, noContext);
          expect(planBuild(structuredClone(built), noContext)).toEqual(a);
          const canonical = noSpace(a.result.canonical_text);
          for (const d of a.result.destinations) {
            const dest = built.destinations.find((x) => x.account_id === d.account_id)!;
            const profile = dest.allowed_output_profiles.find((p) => p.key === d.output_profile)!;
            expect(d.segments.length).toBeLessThanOrEqual(profile.max_segments);
            for (const s of d.segments) expect(measureFor(d.platform)(s.body)).toBeLessThanOrEqual(profile.text_limit);
            // Each claim's sentence appears, in order, in the canonical text.
            let at = 0;
            for (const c of d.claims) {
              const found = canonical.indexOf(noSpace(c.text), at);
              expect(found).toBeGreaterThanOrEqual(0);
              at = found + noSpace(c.text).length;
            }
          }
          expect(a.result.destinations.length + a.result.skipped.length).toBe(built.destinations.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitIntoSegments, SegmentationError } from "../lib/publishing/segment";
import { mastodonLength } from "../lib/platforms/mastodon/adapter";
import { graphemeLength } from "../lib/providers/text";

describe("measuring text", () => {
  it("counts graphemes, so a family emoji is one", () => {
    expect(graphemeLength("👨‍👩‍👧‍👦")).toBe(1);
    expect(graphemeLength("héllo")).toBe(5);
  });
  it("counts every URL as 23 on Mastodon", () => {
    expect(mastodonLength("see https://example.com/a/very/long/path/that/goes/on/and/on")).toBe(4 + 23);
    expect(mastodonLength("no links")).toBe(8);
  });
});

describe("splitting into segments", () => {
  it("keeps short text whole", () => {
    expect(splitIntoSegments("  Hello world  ", 300, graphemeLength)).toEqual(["Hello world"]);
  });

  it("never cuts words and prefers whole paragraphs, then sentences", () => {
    const text = "First paragraph is here.\n\nSecond paragraph follows it.";
    expect(splitIntoSegments(text, 30, graphemeLength)).toEqual(["First paragraph is here.", "Second paragraph follows it."]);
    // The first paragraph would fit beside part of the second, but paragraphs stay whole.
    expect(splitIntoSegments("Short one.\n\nA second paragraph that is longer.", 45, graphemeLength)).toEqual([
      "Short one.",
      "A second paragraph that is longer.",
    ]);
    expect(splitIntoSegments("One sentence here. Another sentence there. Third.", 25, graphemeLength)).toEqual([
      "One sentence here.",
      "Another sentence there.",
      "Third.",
    ]);
  });

  it("never splits a URL, and measures it as the platform does", () => {
    const url = "https://example.com/" + "x".repeat(60);
    const text = `Read ${url} today`;
    const segs = splitIntoSegments(`${text} and then some more words to force a split`, 90, graphemeLength);
    expect(segs.length).toBeGreaterThan(1);
    expect(segs.some((s) => s.includes(url))).toBe(true);
    // On Mastodon the long URL counts 23, so it all fits in one post.
    expect(splitIntoSegments(text, 40, mastodonLength)).toEqual([text]);
  });

  it("refuses a URL longer than a whole segment", () => {
    expect(() => splitIntoSegments("https://example.com/" + "y".repeat(400), 300, graphemeLength)).toThrow(SegmentationError);
  });

  it("cuts a single overlong word between graphemes as a last resort", () => {
    const segs = splitIntoSegments("🙂".repeat(25), 10, graphemeLength);
    expect(segs).toEqual(["🙂".repeat(10), "🙂".repeat(10), "🙂".repeat(5)]);
  });

  it("property: every segment fits, and the words come back in order", () => {
    const word = fc.stringMatching(/^[a-zA-Zé🙂]{1,12}$/u);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 120 }), fc.integer({ min: 12, max: 300 }), (words, limit) => {
        const text = words.join(" ");
        const segs = splitIntoSegments(text, limit, graphemeLength);
        for (const s of segs) expect(graphemeLength(s)).toBeLessThanOrEqual(limit);
        expect(segs.join(" ").split(/\s+/)).toEqual(text.split(/\s+/));
      }),
      { numRuns: 200 },
    );
  });
});

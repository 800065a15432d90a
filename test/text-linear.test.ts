import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitIntoSegments } from "../lib/publishing/segment";
import { mastodonLength } from "../lib/platforms/mastodon/adapter";
import { findUrls, graphemeLength, htmlToText } from "../lib/providers/text";
import { graphemes } from "../lib/text/graphemes";
import { fastestOfEach } from "./helpers/linear-time";

/**
 * Text work must be linear: a 40,000-character word once took 172× the time of a 4,000-character one.
 * Each check times the same function on 1× and 10× input (test/helpers/linear-time.ts) and allows 25×:
 * linear work gives about 10×, quadratic work gives about 100×.
 */
function expectLinear(label: string, work: (scale: number) => () => unknown) {
  const { once, tenfold } = fastestOfEach(work(1), work(10));
  expect(tenfold / Math.max(once, 0.05), `${label}: ${once.toFixed(2)} ms → ${tenfold.toFixed(2)} ms`).toBeLessThan(25);
}

const clusters = ["a", "é", "e\u0301", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "한", "\r\n", " ", "x\u0301\u0302"];

describe("text work is linear in its input", () => {
  it("counting graphemes", () => {
    expectLinear("plain word", (k) => () => graphemeLength("a".repeat(4_000 * k)));
    expectLinear("emoji and marks", (k) => () => graphemeLength(clusters.join("").repeat(200 * k)));
  });

  it("splitting into segments, as each platform measures", () => {
    expectLinear("one long word, Bluesky", (k) => () => splitIntoSegments("a".repeat(4_000 * k), 300, graphemeLength));
    expectLinear("one long word, Mastodon", (k) => () => splitIntoSegments("a".repeat(4_000 * k), 500, mastodonLength));
    expectLinear("many words, Mastodon", (k) => () => splitIntoSegments("ab https://e.x/y @me@x.y ".repeat(160 * k), 500, mastodonLength));
    expectLinear("one long paragraph of sentences", (k) => () => splitIntoSegments("One two three. ".repeat(260 * k), 300, graphemeLength));
    expectLinear("emoji text", (k) => () => splitIntoSegments(clusters.join("").repeat(200 * k), 300, graphemeLength));
  });

  it("finding URLs and converting HTML, on hostile input", () => {
    expectLinear("closing brackets", (k) => () => findUrls("http://a.b/" + ")".repeat(4_000 * k)));
    expectLinear("unclosed tags", (k) => () => htmlToText("<".repeat(4_000 * k)));
    expectLinear("unended entities", (k) => () => htmlToText("&#1".repeat(2_000 * k)));
    expectLinear("paragraph ends", (k) => () => htmlToText("</p> ".repeat(2_000 * k)));
  });
});

describe("graphemes in windows", () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  it("property: the same clusters as Intl.Segmenter over the whole text, across window edges", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...clusters), { minLength: 0, maxLength: 400 }), (parts) => {
        const text = parts.join("");
        expect([...graphemes(text)]).toEqual(Array.from(segmenter.segment(text), (s) => s.segment));
      }),
      { numRuns: 150 },
    );
  });
});

describe("HTML to text", () => {
  it("keeps paragraphs and line breaks, drops tags, decodes entities once", () => {
    expect(htmlToText("<p>Hello &amp; <b>bye</b></p>\n<p>Second<br>line<br/>x<br />y</p>")).toBe("Hello & bye\n\nSecond\nline\nx\ny");
    expect(htmlToText("a &lt;b&gt; &amp;lt; &#39;q&#39; &#x1F600; < open")).toBe("a <b> &lt; 'q' 😀 < open");
  });
  it("leaves an out-of-range character reference as it is instead of failing", () => {
    expect(htmlToText("&#99999999; &#x110000;")).toBe("&#99999999; &#x110000;");
  });
});

describe("segments on Mastodon", () => {
  it("property: every segment fits as Mastodon counts, and the words come back in order", () => {
    const word = fc.oneof(fc.stringMatching(/^[a-zé🙂]{1,30}$/u), fc.constant("https://example.com/a/long/path"), fc.constant("@someone@example.social"));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 150 }), fc.integer({ min: 30, max: 500 }), (words, limit) => {
        const text = words.join(" ");
        const segs = splitIntoSegments(text, limit, mastodonLength);
        for (const s of segs) expect(mastodonLength(s)).toBeLessThanOrEqual(limit);
        expect(segs.join(" ").split(/\s+/)).toEqual(text.split(/\s+/));
      }),
      { numRuns: 150 },
    );
  });
});

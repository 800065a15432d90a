import { describe, expect, it } from "vitest";
import { pageText } from "../lib/builds/fetch-source";
import { fastestOfEach } from "./helpers/linear-time";

/** HTML to text for URL sources: pure, linear, and safe on hostile pages. */

describe("pageText", () => {
  it("keeps prose, drops scripts, styles and comments' tags, decodes entities, makes paragraphs", () => {
    const html =
      "<html><head><title>T</title><style>p { color: red }</style></head><body><script>alert('x')</script><h1>Title</h1><p>One &amp; two.</p><p>Three&nbsp;<b>bold</b> &#x1F642;</p></body></html>";
    const text = pageText(html);
    expect(text).not.toContain("alert");
    expect(text).not.toContain("color");
    expect(text).toContain("Title");
    expect(text).toContain("One & two.");
    expect(text).toContain("🙂");
    expect(text.split("\n\n").length).toBeGreaterThanOrEqual(3);
  });

  it("stays linear on hostile input (unclosed tags, endless '<', unclosed scripts): 10× input far from quadratic", () => {
    for (const unit of ["<", "<a", "<script>", "&amp", "<p>x</p>", "a<b>c", "plain text "]) {
      // 200 KB against 2 MB: the largest page a build reads (SOURCE_MAX_BYTES).
      const small = unit.repeat(Math.ceil(200_000 / unit.length));
      const large = unit.repeat(Math.ceil(2_000_000 / unit.length));
      // A quadratic scan is ~100× slower at 10× input. The bound is looser than the planner's 12×: cache effects
      // on a 2 MB string vary more than the planner's small inputs do.
      const { once, tenfold } = fastestOfEach(
        () => pageText(small),
        () => pageText(large),
      );
      const ratio = tenfold / Math.max(0.5, once);
      const report = `${JSON.stringify(unit)}: ${once.toFixed(1)} ms vs ${tenfold.toFixed(1)} ms`;
      expect(ratio, report).toBeLessThan(40);
    }
  });
});

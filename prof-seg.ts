import { splitIntoSegments } from "./lib/publishing/segment";
import { graphemeLength, findUrls } from "./lib/providers/text";
import { mastodonLength } from "./lib/providers/mastodon";
const t = (label: string, fn: () => unknown) => { const s = performance.now(); fn(); console.log(label, (performance.now() - s).toFixed(1), "ms"); };
for (const n of [4000, 40000]) {
  const word = "a".repeat(n);
  t(`webhook word ${n}`, () => splitIntoSegments(word, 10000, graphemeLength));
  t(`bluesky word ${n}`, () => splitIntoSegments(word, 300, graphemeLength));
  t(`mastodon word ${n}`, () => splitIntoSegments(word, 500, mastodonLength));
  const words = "ab ".repeat(n / 3);
  t(`webhook words ${n}`, () => splitIntoSegments(words, 1000, graphemeLength));
  t(`urls parens ${n}`, () => findUrls("http://a.b/" + ")".repeat(n)));
  t(`urls dots ${n}`, () => findUrls("http://a.b/" + ".".repeat(n)));
}

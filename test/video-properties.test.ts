import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyOperations, type InverseOperation, type VideoOperation } from "../lib/video/apply";
import type { VideoDocument } from "../lib/video/document";
import { footprintOf, overlapTargets, targetsOf } from "../lib/video/footprint";
import { rebuildBackward, rebuildForward } from "../lib/video/rebase";
import { sampleVideoDocument } from "../lib/video/sample";

/**
 * Properties of the rebase logic over random batches drawn from a small vocabulary, so that batches often
 * touch the same elements and paths (the interesting cases) and are often valid.
 */

const TARGETS = ["project", "track-video", "track-text", "track-new", "clip-intro", "clip-title", "clip-new"];
const PATHS = [
  "",
  "/name",
  "/order",
  "/style",
  "/style/color",
  "/style/size",
  "/styles",
  "/start_ms",
  "/duration_ms",
  "/track_id",
  "/keyframes",
  "/keyframes/0",
  "/keyframes/-",
  "/meta/a",
  "/meta/b",
  "/fps",
  "/width",
];
const VALUES = [
  0,
  1,
  250,
  1080,
  "x",
  "#ffffff",
  "track-video",
  "track-text",
  "track-new",
  true,
  null,
  [1, 2],
  [],
  { color: "#000000" },
  { a: 1 },
  { kind: "audio", name: "New", order: 2 },
  { track_id: "track-video", start_ms: 100, duration_ms: 900 },
  { track_id: "track-new", start_ms: 0, duration_ms: 10 },
  { width: 720, height: 1280, fps: 25 },
];

const CLIPS = ["clip-intro", "clip-title", "clip-new"];
const TRACKS = ["track-video", "track-text", "track-new"];
const op = (kind: "set" | "remove", targets: string[], paths: string[], values: unknown[] = [null]) =>
  fc
    .record({ kind: fc.constant(kind), target: fc.constantFrom(...targets), path: fc.constantFrom(...paths), value: fc.constantFrom(...values) })
    .map((o): VideoOperation => (kind === "set" ? o : { kind, target: o.target, path: o.path }));

/** Mostly operations that make sense (so batches are often valid), plus anything from the vocabulary. */
const operation: fc.Arbitrary<VideoOperation> = fc.oneof(
  op("set", CLIPS, ["/style/color", "/style/size", "/meta/a", "/meta/b", "/name"], ["#000000", 12, "x"]),
  op("set", CLIPS, ["/style"], [{ color: "#000000" }, {}]),
  op("set", CLIPS, ["/start_ms", "/duration_ms"], [1, 250, 1000]),
  op("set", CLIPS, ["/track_id"], TRACKS),
  op("set", CLIPS, ["/keyframes", "/keyframes/-", "/keyframes/0"], [[1, 2], 3]),
  op("remove", CLIPS, ["/style/size", "/meta/a", "/name", "/keyframes/0", "", "/style"]),
  op("set", TRACKS, ["/name", "/order", "/meta/a"], [1, "Main"]),
  op(
    "set",
    CLIPS,
    [""],
    [
      { track_id: "track-video", start_ms: 100, duration_ms: 900 },
      { track_id: "track-new", start_ms: 0, duration_ms: 10 },
    ],
  ),
  op("set", TRACKS, [""], [{ kind: "audio", name: "New", order: 2 }]),
  op("remove", TRACKS, [""]),
  op("set", ["project"], ["/fps", "/width", "/meta/a"], [25, 720]),
  op("set", TARGETS, PATHS, VALUES),
  op("remove", TARGETS, PATHS),
);
const batch = fc.array(operation, { minLength: 1, maxLength: 3 });

/** A document with some variety, derived from the sample by a valid random batch (or the sample itself). */
const documentArb: fc.Arbitrary<VideoDocument> = batch.map((ops) => {
  const r = applyOperations(sampleVideoDocument(), ops);
  return r.ok ? r.document : sampleVideoDocument();
});

const outcome = (doc: VideoDocument, first: VideoOperation[], second: VideoOperation[]) => {
  const a = applyOperations(doc, first);
  if (!a.ok) return "fails";
  const b = applyOperations(a.document, second);
  return b.ok ? b.document : "fails";
};

describe("rebase properties", () => {
  it("applying disjoint batches in either order gives the same document", () => {
    let checked = 0;
    fc.assert(
      fc.property(documentArb, batch, batch, (doc, a, b) => {
        // Two batches each valid on the same document, with disjoint footprints: what a rebase assumes.
        if (!applyOperations(doc, a).ok || !applyOperations(doc, b).ok) return;
        if (overlapTargets(footprintOf(a), footprintOf(b)).length > 0) return;
        checked++;
        expect(outcome(doc, a, b)).toEqual(outcome(doc, b, a));
      }),
      { numRuns: 3000 },
    );
    expect(checked).toBeGreaterThan(100); // the generator reaches plenty of valid, disjoint pairs
  });

  it("overlap is symmetric", () => {
    fc.assert(
      fc.property(batch, batch, (a, b) => {
        expect(overlapTargets(footprintOf(a), footprintOf(b))).toEqual(overlapTargets(footprintOf(b), footprintOf(a)));
      }),
      { numRuns: 2000 },
    );
  });

  it("a batch never overlaps one that touches none of its targets, and always overlaps itself", () => {
    fc.assert(
      fc.property(batch, batch, (a, b) => {
        const fa = footprintOf(a);
        const fb = footprintOf(b);
        if (targetsOf(fa).some((t) => targetsOf(fb).includes(t))) return;
        expect(overlapTargets(fa, fb)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(batch, (a) => {
        const written = [...new Set(a.map((op) => op.target))].sort();
        expect(overlapTargets(footprintOf(a), footprintOf(a))).toEqual(written);
      }),
    );
  });

  it("a revision's inverse restores the document it was applied to", () => {
    fc.assert(
      fc.property(documentArb, batch, (doc, a) => {
        const r = applyOperations(doc, a);
        if (!r.ok) return;
        expect(rebuildBackward(r.document, [{ revision: 2, inverse: r.inverse }])).toEqual(doc);
      }),
      { numRuns: 2000 },
    );
  });

  it("rebuilding backward from head and forward from a snapshot agree with the recorded documents", () => {
    fc.assert(
      fc.property(fc.array(batch, { minLength: 1, maxLength: 12 }), fc.nat(), (batches, pick) => {
        const docs: VideoDocument[] = [sampleVideoDocument()];
        const revisions: { revision: number; operations: VideoOperation[]; inverse: InverseOperation[] }[] = [];
        for (const ops of batches) {
          const r = applyOperations(docs[docs.length - 1], ops);
          if (!r.ok) continue;
          docs.push(r.document);
          revisions.push({ revision: docs.length, operations: ops, inverse: r.inverse });
        }
        const base = 1 + (pick % docs.length); // revision numbers start at 1
        const head = docs.length;
        const newer = revisions.filter((r) => r.revision > base);
        const older = revisions.filter((r) => r.revision <= base);
        expect(rebuildBackward(docs[head - 1], newer)).toEqual(docs[base - 1]);
        expect(rebuildForward(docs[0], older)).toEqual(docs[base - 1]);
      }),
      { numRuns: 500 },
    );
  });
});

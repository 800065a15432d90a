import { describe, expect, it } from "vitest";
import { applyOperations, type VideoOperation } from "../lib/video/apply";
import { documentIssues } from "../lib/video/document";
import { decodeTouch, encodeTouch, footprintOf, overlapTargets, truncateAtIndex } from "../lib/video/footprint";
import { formatPointer, isPrefix, parsePointer, pathsOverlap } from "../lib/video/pointer";
import { decide, planReconstruction, snapshotAtOrBefore } from "../lib/video/rebase";
import { sampleVideoDocument } from "../lib/video/sample";

const doc = sampleVideoDocument;
const set = (target: string, path: string, value: unknown): VideoOperation => ({ kind: "set", target, path, value });
const remove = (target: string, path: string): VideoOperation => ({ kind: "remove", target, path });

describe("JSON Pointer", () => {
  it("parses with ~0 / ~1 escapes and formats back", () => {
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/")).toEqual([""]);
    expect(parsePointer("/a~1b/m~0n/~01")).toEqual(["a/b", "m~n", "~1"]);
    expect(formatPointer(["a/b", "m~n", "~1"])).toBe("/a~1b/m~0n/~01");
  });

  it("refuses what is not a pointer", () => {
    for (const bad of ["a/b", "style", "/a~2", "/a~", "~1"]) expect(() => parsePointer(bad), bad).toThrow(/JSON Pointer/);
  });

  it("compares by segments: /style overlaps /style/color but not /styles", () => {
    expect(pathsOverlap(parsePointer("/style"), parsePointer("/style/color"))).toBe(true);
    expect(pathsOverlap(parsePointer("/style/color"), parsePointer("/style"))).toBe(true);
    expect(pathsOverlap(parsePointer("/style"), parsePointer("/styles"))).toBe(false);
    expect(pathsOverlap(parsePointer("/a~1b"), parsePointer("/a/b"))).toBe(false);
    expect(isPrefix([], ["anything"])).toBe(true);
  });
});

describe("the video document", () => {
  it("accepts the sample and rejects broken ones with a located problem", () => {
    expect(documentIssues(doc())).toEqual([]);
    const orphan = doc();
    orphan.clips["clip-intro"].track_id = "track-gone";
    expect(documentIssues(orphan)).toEqual([expect.objectContaining({ path: ["clips", "clip-intro", "track_id"] })]);
    expect(documentIssues({ ...doc(), settings: { ...doc().settings, width: 0 } })[0].path).toEqual(["settings", "width"]);
    expect(documentIssues({ ...doc(), extra: 1 })[0].message).toMatch(/unrecognized/i);
    expect(documentIssues({ ...doc(), tracks: { project: { kind: "video", name: "x", order: 0 } } })[0].path).toEqual(["tracks", "project"]);
    const shared = doc();
    shared.clips["track-video"] = { track_id: "track-video", start_ms: 0, duration_ms: 1 };
    expect(documentIssues(shared)[0].message).toMatch(/unique across tracks and clips/);
  });
});

describe("applying operations", () => {
  it("sets, creates intermediate objects, and keeps unknown members", () => {
    const r = applyOperations(doc(), [set("clip-title", "/style/color", "#ff0000"), set("clip-intro", "/effects/blur/radius", 4), set("project", "/fps", 60)]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.document.clips["clip-title"].style).toEqual({ color: "#ff0000", size: 64 });
    expect(r.document.clips["clip-intro"].effects).toEqual({ blur: { radius: 4 } });
    expect(r.document.settings.fps).toBe(60);
  });

  it("creates and removes elements: a value with a track_id is a clip, another object a track", () => {
    const r = applyOperations(doc(), [
      set("track-music", "", { kind: "audio", name: "Music", order: -1 }),
      set("clip-song", "", { track_id: "track-music", start_ms: 0, duration_ms: 9000 }),
      remove("clip-intro", ""),
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.document.tracks["track-music"]).toMatchObject({ kind: "audio" });
    expect(r.document.clips["clip-song"]).toMatchObject({ track_id: "track-music" });
    expect(r.document.clips["clip-intro"]).toBeUndefined();
  });

  it("appends with -, replaces by index, and shifts on remove", () => {
    const r = applyOperations(doc(), [
      set("clip-intro", "/keyframes", [1, 2]),
      set("clip-intro", "/keyframes/-", 3),
      set("clip-intro", "/keyframes/0", 10),
      remove("clip-intro", "/keyframes/1"),
    ]);
    expect(r.ok && r.document.clips["clip-intro"].keyframes).toEqual([10, 3]);
  });

  it("names the operation and field that fail", () => {
    const at = (ops: VideoOperation[]) => {
      const r = applyOperations(doc(), ops);
      return r.ok ? null : r.errors[0];
    };
    expect(at([set("clip-title", "/x", 1), set("clip-nope", "/start_ms", 1)])).toMatchObject({ index: 1, field: "target" });
    expect(at([remove("clip-title", "/style/weight")])).toMatchObject({ index: 0, field: "path" });
    expect(at([set("clip-title", "/text/x", 1)])).toMatchObject({ index: 0, field: "path" });
    expect(at([set("clip-title", "/start_ms", "soon")])).toMatchObject({ index: 0, field: "value", message: expect.stringMatching(/clip-title\/start_ms/) });
    expect(at([remove("clip-title", "/duration_ms")])).toMatchObject({ index: 0, field: "path" });
    expect(at([remove("track-video", "")])).toMatchObject({ index: 0, field: "target", message: expect.stringMatching(/still on track/) });
    expect(at([remove("project", "")])).toMatchObject({ index: 0, field: "target" });
    expect(at([set("clip-new", "", 5)])).toMatchObject({ index: 0, field: "value" });
    expect(at([set("clip-intro", "/keyframes", []), set("clip-intro", "/keyframes/3", 1)])).toMatchObject({ index: 1, field: "path" });
    expect(at([set("track-video", "/track_id", "track-text")])).toMatchObject({ index: 0, field: "value" });
  });

  it("treats __proto__ as a plain key and never touches the input", () => {
    const before = doc();
    const r = applyOperations(before, [set("clip-title", "/__proto__", { polluted: true })]);
    expect(({} as any).polluted).toBeUndefined();
    expect(r.ok).toBe(true);
    if (r.ok) expect(Object.hasOwn(r.document.clips["clip-title"], "__proto__")).toBe(true);
    expect(before).toEqual(doc());
  });
});

describe("footprints and overlap", () => {
  it("records writes (array writes widen to the array) and track reads", () => {
    const fp = footprintOf([
      set("clip-a", "/keyframes/2/x", 1),
      set("clip-b", "", { track_id: "track-1", start_ms: 0, duration_ms: 1 }),
      set("clip-c", "/track_id", "track-2"),
    ]);
    expect(fp.map(encodeTouch)).toEqual(["w/keyframes", "w", "r", "w/track_id", "r"]);
    expect(fp.map((t) => t.target)).toEqual(["clip-a", "clip-b", "track-1", "clip-c", "track-2"]);
    expect(truncateAtIndex(["a", "0", "b"])).toEqual(["a"]);
    expect(decodeTouch("x", "w/a~1b")).toEqual({ target: "x", mode: "write", path: ["a/b"] });
  });

  it("overlaps on shared prefixes of one target only", () => {
    const a = footprintOf([set("clip-1", "/style", {})]);
    expect(overlapTargets(a, footprintOf([set("clip-1", "/style/color", "#fff")]))).toEqual(["clip-1"]);
    expect(overlapTargets(a, footprintOf([set("clip-1", "/styles", 1)]))).toEqual([]);
    expect(overlapTargets(a, footprintOf([set("clip-2", "/style", {})]))).toEqual([]);
    // Two clips added to one track read it; neither overlaps the other, but removing the track overlaps both.
    const addOne = footprintOf([set("c1", "", { track_id: "t", start_ms: 0, duration_ms: 1 })]);
    const addTwo = footprintOf([set("c2", "", { track_id: "t", start_ms: 0, duration_ms: 1 })]);
    expect(overlapTargets(addOne, addTwo)).toEqual([]);
    expect(overlapTargets(addOne, footprintOf([remove("t", "")]))).toEqual(["t"]);
    expect(overlapTargets(addOne, footprintOf([set("t", "/name", "x")]))).toEqual([]);
  });
});

describe("deciding a batch", () => {
  const base = doc();
  const later = applyOperations(base, [set("clip-title", "/style/color", "#00ff00")]);
  if (!later.ok) throw new Error("fixture");
  const history = [{ revision: 2, touches: footprintOf([set("clip-title", "/style/color", "#00ff00")]) }];
  const input = (operations: VideoOperation[], baseRevision = 1) => ({
    baseRevision,
    headRevision: 2,
    baseDocument: base,
    headDocument: later.document,
    operations,
    later: history,
  });

  it("applies at head, rebases when disjoint, conflicts when overlapping", () => {
    expect(decide(input([set("clip-intro", "/name", "Hello")], 2)).outcome).toBe("applied");
    const rebased = decide(input([set("clip-title", "/style/size", 72)]));
    expect(rebased).toMatchObject({ outcome: "rebased" });
    if (rebased.outcome === "rebased") expect(rebased.document.clips["clip-title"].style).toEqual({ color: "#00ff00", size: 72 });
    expect(decide(input([set("clip-title", "/style", { color: "#000000" })]))).toMatchObject({ outcome: "conflict", overlapTargets: ["clip-title"] });
  });

  it("judges validity against the base document, not head", () => {
    expect(decide(input([remove("clip-title", "/style/weight")]))).toMatchObject({ outcome: "invalid" });
  });

  it("keeps a disjoint batch that head can no longer take as a conflict", () => {
    const crowded = { ...later.document, tracks: { ...later.document.tracks } };
    for (let i = 0; i < 98; i++) crowded.tracks[`t${i}`] = { kind: "video", name: "x", order: i };
    const r = decide({ ...input([set("track-new", "", { kind: "audio", name: "y", order: 5 })]), headDocument: crowded });
    expect(r).toMatchObject({ outcome: "conflict", overlapTargets: ["track-new"] });
  });

  it("plans the cheaper reconstruction", () => {
    expect(snapshotAtOrBefore(1)).toBe(1);
    expect(snapshotAtOrBefore(63)).toBe(1);
    expect(snapshotAtOrBefore(130)).toBe(128);
    expect(planReconstruction(9_997, 10_000)).toEqual({ from: "head", first: 9_998, last: 10_000 });
    expect(planReconstruction(130, 10_000)).toEqual({ from: "snapshot", snapshot: 128, first: 129, last: 130 });
  });
});

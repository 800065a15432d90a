import type { VideoOperation } from "./apply";
import { formatPointer, parsePointer, pathsOverlap, type Segments } from "./pointer";

/**
 * What a batch touches, and when two batches overlap (CONTRACT.md §5): they overlap when they touch the
 * same target with paths where one is a prefix of the other, compared by JSON Pointer segments.
 *
 * Two refinements keep "disjoint" meaning "safe to apply in either order":
 * - A write through an array index (`/keyframes/2/x`, `/keyframes/-`) counts as a write of the whole array
 *   (`/keyframes`): removing item 0 shifts every other index, so index-level disjointness means nothing.
 * - Putting a clip on a track (creating the clip, replacing it, or setting its `track_id`) reads that the
 *   track exists. A read overlaps only a write of the whole element (creating, replacing or removing the
 *   track), so two people adding clips to one track do not conflict, but adding a clip to a track that
 *   someone else removed does.
 */

export type TouchMode = "write" | "read";

export interface Touch {
  target: string;
  path: Segments;
  mode: TouchMode;
}

/** Segments up to (not including) the first one that could be an array index. Conservative on numeric keys. */
export function truncateAtIndex(segments: Segments): string[] {
  const cut = segments.findIndex((s) => s === "-" || /^[0-9]+$/.test(s));
  return (cut < 0 ? segments : segments.slice(0, cut)) as string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Distinct touches of a batch. Operations must already have valid pointers. */
export function footprintOf(ops: readonly VideoOperation[]): Touch[] {
  const seen = new Map<string, Touch>();
  const add = (touch: Touch) => {
    const key = encodeTouch(touch) + "\u0000" + touch.target;
    if (!seen.has(key)) seen.set(key, touch);
  };
  for (const op of ops) {
    const segments = parsePointer(op.path);
    add({ target: op.target, path: truncateAtIndex(segments), mode: "write" });
    if (op.kind !== "set") continue;
    if (segments.length === 0 && isObject(op.value) && typeof op.value.track_id === "string") {
      add({ target: op.value.track_id, path: [], mode: "read" });
    } else if (segments.length === 1 && segments[0] === "track_id" && typeof op.value === "string") {
      add({ target: op.value, path: [], mode: "read" });
    }
  }
  return [...seen.values()];
}

export function touchesOverlap(a: Touch, b: Touch): boolean {
  if (a.target !== b.target) return false;
  if (a.mode === "write" && b.mode === "write") return pathsOverlap(a.path, b.path);
  if (a.mode === "read" && b.mode === "write") return b.path.length === 0;
  if (a.mode === "write" && b.mode === "read") return a.path.length === 0;
  return false;
}

/** The targets on which two footprints overlap, sorted; empty when they are disjoint. Symmetric. */
export function overlapTargets(a: readonly Touch[], b: readonly Touch[]): string[] {
  const byTarget = new Map<string, Touch[]>();
  for (const t of b) byTarget.set(t.target, [...(byTarget.get(t.target) ?? []), t]);
  const out = new Set<string>();
  for (const t of a) {
    if (out.has(t.target)) continue;
    if ((byTarget.get(t.target) ?? []).some((u) => touchesOverlap(t, u))) out.add(t.target);
  }
  return [...out].sort();
}

/** Distinct targets of a footprint, sorted: what the history index is queried by. */
export const targetsOf = (touches: readonly Touch[]) => [...new Set(touches.map((t) => t.target))].sort();

/**
 * Stored form of one touch, without its target (rows are per target): the mode letter then the
 * pointer, e.g. `w/style/color`, `w` (the whole element), `r` (the element exists).
 */
export function encodeTouch(touch: Touch): string {
  return (touch.mode === "write" ? "w" : "r") + formatPointer(touch.path);
}

export function decodeTouch(target: string, encoded: string): Touch {
  return { target, mode: encoded[0] === "r" ? "read" : "write", path: parsePointer(encoded.slice(1)) };
}

/** The touches of a footprint grouped by target, in stored form. */
export function groupForStorage(touches: readonly Touch[]): { target: string; touches: string[] }[] {
  const map = new Map<string, string[]>();
  for (const t of touches) map.set(t.target, [...(map.get(t.target) ?? []), encodeTouch(t)]);
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([target, list]) => ({ target, touches: list }));
}

import { applyInPlace, applyOperations, undoInPlace, type InverseOperation, type OperationError, type VideoOperation } from "./apply";
import type { VideoDocument } from "./document";
import { footprintOf, overlapTargets, type Touch } from "./footprint";

/**
 * The outcome of a mutation batch (SPEC.md 3.1, CONTRACT.md §5), decided from plain data:
 * - the batch must apply to the document it was based on, else it is invalid (422, nothing written);
 * - based on head → `applied`;
 * - stale, and its footprint is disjoint from every later revision's → `rebased` onto head;
 * - stale and overlapping → `conflict` on the overlapping targets.
 * A stale, disjoint batch that still cannot be applied to head (its result breaks a document-wide rule,
 * such as the clip limit) is a conflict too: it was valid where its author made it, so it is kept on a
 * branch rather than refused.
 */

export interface LaterRevision {
  revision: number;
  touches: Touch[];
}

export type Decision =
  | { outcome: "invalid"; errors: OperationError[] }
  | { outcome: "applied" | "rebased"; document: VideoDocument; inverse: InverseOperation[]; footprint: Touch[] }
  | { outcome: "conflict"; overlapTargets: string[]; footprint: Touch[] };

export interface DecisionInput {
  baseRevision: number;
  headRevision: number;
  baseDocument: VideoDocument;
  headDocument: VideoDocument;
  operations: readonly VideoOperation[];
  /** Revisions after the base that touch any of the batch's targets (others cannot overlap). */
  later: readonly LaterRevision[];
}

export function decide(input: DecisionInput): Decision {
  const onBase = applyOperations(input.baseDocument, input.operations);
  if (!onBase.ok) return { outcome: "invalid", errors: onBase.errors };
  const footprint = footprintOf(input.operations);
  if (input.baseRevision === input.headRevision) return { outcome: "applied", document: onBase.document, inverse: onBase.inverse, footprint };

  const overlapping = new Set<string>();
  for (const revision of input.later) {
    if (revision.revision <= input.baseRevision) continue;
    for (const target of overlapTargets(footprint, revision.touches)) overlapping.add(target);
  }
  if (overlapping.size > 0) return { outcome: "conflict", overlapTargets: [...overlapping].sort(), footprint };

  const onHead = applyOperations(input.headDocument, input.operations);
  if (onHead.ok) return { outcome: "rebased", document: onHead.document, inverse: onHead.inverse, footprint };
  const blamed = onHead.errors.flatMap((e) => (e.index === null ? [] : [input.operations[e.index].target]));
  const targets = blamed.length > 0 ? blamed : input.operations.map((op) => op.target);
  return { outcome: "conflict", overlapTargets: [...new Set(targets)].sort(), footprint };
}

/**
 * Older documents are rebuilt rather than stored: every revision keeps its operations and their inverse,
 * and every SNAPSHOT_EVERY-th revision (and the first) also keeps a full copy. The document at any revision
 * is then at most SNAPSHOT_EVERY / 2 … SNAPSHOT_EVERY revisions of replay away, whatever the history's length.
 */
export const SNAPSHOT_EVERY = 64;

export const keepsSnapshot = (revision: number) => revision === 1 || revision % SNAPSHOT_EVERY === 0;

/** The latest revision at or before `revision` that keeps a snapshot. */
export const snapshotAtOrBefore = (revision: number) => Math.max(1, Math.floor(revision / SNAPSHOT_EVERY) * SNAPSHOT_EVERY);

export type ReconstructionPlan =
  /** Undo revisions base+1 … head from the head document. */
  | { from: "head"; first: number; last: number }
  /** Replay revisions snapshot+1 … base onto the snapshot. */
  | { from: "snapshot"; snapshot: number; first: number; last: number };

/** The cheaper way to the document at `base`: back from head, or forward from the nearest snapshot. */
export function planReconstruction(base: number, head: number): ReconstructionPlan {
  const snapshot = snapshotAtOrBefore(base);
  if (head - base <= base - snapshot) return { from: "head", first: base + 1, last: head };
  return { from: "snapshot", snapshot, first: snapshot + 1, last: base };
}

/** Undo `newer` (any order) from a copy of the head document. */
export function rebuildBackward(head: VideoDocument, newer: readonly { revision: number; inverse: InverseOperation[] }[]): VideoDocument {
  const doc = structuredClone(head);
  for (const r of [...newer].sort((a, b) => b.revision - a.revision)) undoInPlace(doc, r.inverse);
  return doc;
}

/** Replay `older` (any order) onto a copy of a snapshot. */
export function rebuildForward(snapshot: VideoDocument, older: readonly { revision: number; operations: VideoOperation[] }[]): VideoDocument {
  const doc = structuredClone(snapshot);
  for (const r of [...older].sort((a, b) => a.revision - b.revision)) applyInPlace(doc, r.operations);
  return doc;
}

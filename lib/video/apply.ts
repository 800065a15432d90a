import { documentIssues, PROJECT_TARGET, type VideoDocument } from "./document";
import { formatPointer, isIndexToken, parsePointer, pathsOverlap, PointerSyntaxError } from "./pointer";

/**
 * Applying mutation operations (CONTRACT.md §5) to a video document. `target` names an element — a track
 * or clip id, or `project` for the settings — and `path` is a JSON Pointer inside it:
 * - `set` at "" replaces the element, or creates it when no element has that id (a value with a
 *   `track_id` becomes a clip, any other object a track); `remove` at "" deletes it.
 * - `set` at a deeper path writes that member, creating missing intermediate objects; on an array the
 *   last segment may be an index (replace) or `-` / the length (append). `remove` needs the member to
 *   exist; on an array it removes the item and shifts the rest.
 * Every operation also yields its inverse, so a revision can be undone (and an older document rebuilt).
 */

export interface VideoOperation {
  kind: "set" | "remove";
  target: string;
  path: string;
  value?: unknown;
}

/**
 * An inverse step: like an operation, plus `insert` (put an item back into an array at its index) and, when
 * it restores a removed element, the collection it came from (mid-batch it may not have looked like one).
 */
export interface InverseOperation {
  kind: "set" | "remove" | "insert";
  target: string;
  path: string;
  value?: unknown;
  collection?: "tracks" | "clips";
}

export interface OperationError {
  /** The operation at fault, or null when the document as a whole breaks a limit. */
  index: number | null;
  field: "target" | "path" | "value" | null;
  message: string;
}

export type ApplyResult = { ok: true; document: VideoDocument; inverse: InverseOperation[] } | { ok: false; errors: OperationError[] };

class StepError extends Error {
  constructor(
    readonly field: "target" | "path" | "value",
    message: string,
  ) {
    super(message);
  }
}

type Json = any;
const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);
const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Own-property write: a key such as `__proto__` becomes data, never the object's prototype. */
function put(obj: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

type Collection = "settings" | "tracks" | "clips";

function locate(doc: Json, target: string): { collection: Collection; exists: boolean } {
  if (target === PROJECT_TARGET) return { collection: "settings", exists: true };
  if (Object.hasOwn(doc.tracks, target)) return { collection: "tracks", exists: true };
  if (Object.hasOwn(doc.clips, target)) return { collection: "clips", exists: true };
  return { collection: "clips", exists: false };
}

/** Applies one step in place and returns its inverse. */
function step(doc: Json, op: InverseOperation): InverseOperation {
  const { target } = op;
  let segments: string[];
  try {
    segments = parsePointer(op.path);
  } catch (err) {
    if (err instanceof PointerSyntaxError) throw new StepError("path", err.message);
    throw err;
  }
  const where = locate(doc, target);
  const holder: Record<string, Json> = where.collection === "settings" ? doc : doc[where.collection];
  const key = where.collection === "settings" ? "settings" : target;

  if (segments.length === 0) {
    if (op.kind === "remove") {
      if (!where.exists) throw new StepError("target", `No track or clip has the id ${target}`);
      if (where.collection === "settings") throw new StepError("target", "The project settings cannot be removed; set them instead");
      const old = holder[key];
      delete holder[key];
      return { kind: "set", target, path: "", value: old, collection: where.collection as "tracks" | "clips" };
    }
    if (op.kind === "insert") throw new StepError("path", "insert needs an array index");
    if (where.exists) {
      const old = holder[key];
      put(holder, key, structuredClone(op.value));
      return { kind: "set", target, path: "", value: old };
    }
    if (op.collection) {
      put(doc[op.collection], target, structuredClone(op.value));
      return { kind: "remove", target, path: "" };
    }
    if (!isObject(op.value)) throw new StepError("value", `No element has the id ${target}; to create one, set an object (a clip has a track_id)`);
    put("track_id" in op.value ? doc.clips : doc.tracks, target, structuredClone(op.value));
    return { kind: "remove", target, path: "" };
  }

  if (!where.exists) throw new StepError("target", `No track or clip has the id ${target}`);
  // Walk to the parent of the last segment, creating missing objects for `set`.
  let parent: Json = holder[key];
  let created: number | null = null;
  for (let i = 0; i < segments.length - 1; i++) {
    const seg = segments[i];
    if (Array.isArray(parent)) {
      if (seg === "-" || !isIndexToken(seg) || Number(seg) >= parent.length) {
        throw new StepError("path", `${formatPointer(segments.slice(0, i + 1))} is not an item of the array`);
      }
      parent = parent[Number(seg)];
    } else if (isObject(parent)) {
      if (!Object.hasOwn(parent, seg)) {
        if (op.kind !== "set") throw new StepError("path", `Nothing at ${formatPointer(segments.slice(0, i + 1))} in ${target}`);
        put(parent, seg, {});
        created ??= i;
      }
      parent = parent[seg];
    } else {
      throw new StepError("path", `${formatPointer(segments.slice(0, i))} in ${target} is a ${kindOf(parent)}, not an object or array`);
    }
  }
  const last = segments[segments.length - 1];
  const createdInverse = (): InverseOperation => ({ kind: "remove", target, path: formatPointer(segments.slice(0, created! + 1)) });

  if (Array.isArray(parent)) {
    if (!isIndexToken(last)) throw new StepError("path", `${last} is not an array index (use a number or -)`);
    const index = last === "-" ? parent.length : Number(last);
    const atPath = formatPointer([...segments.slice(0, -1), String(index)]);
    if (op.kind === "remove") {
      if (index >= parent.length) throw new StepError("path", `No item at ${op.path} in ${target}`);
      const [old] = parent.splice(index, 1);
      return { kind: "insert", target, path: atPath, value: old };
    }
    if (index > parent.length) throw new StepError("path", `Index ${index} is past the end of the array (length ${parent.length})`);
    if (op.kind === "insert" || index === parent.length) {
      parent.splice(index, 0, structuredClone(op.value));
      return { kind: "remove", target, path: atPath };
    }
    const old = parent[index];
    parent[index] = structuredClone(op.value);
    return { kind: "set", target, path: atPath, value: old };
  }
  if (!isObject(parent)) throw new StepError("path", `${formatPointer(segments.slice(0, -1))} in ${target} is a ${kindOf(parent)}, not an object or array`);
  if (op.kind === "remove") {
    if (!Object.hasOwn(parent, last)) throw new StepError("path", `Nothing at ${op.path} in ${target}`);
    const old = parent[last];
    delete parent[last];
    return { kind: "set", target, path: op.path, value: old };
  }
  if (op.kind === "insert") throw new StepError("path", "insert needs an array");
  const existed = Object.hasOwn(parent, last);
  const old = parent[last];
  put(parent, last, structuredClone(op.value));
  if (created !== null) return createdInverse();
  return existed ? { kind: "set", target, path: op.path, value: old } : { kind: "remove", target, path: op.path };
}

/**
 * Applies `ops` to `doc` in place, without validating the result: for replaying stored revisions and
 * their inverses, which were valid when recorded. Throws on a step that does not apply.
 */
export function applyInPlace(doc: Json, ops: readonly InverseOperation[]): InverseOperation[] {
  return ops.map((op) => step(doc, op));
}

/** Undoes a revision in place: its inverse steps, last first. */
export function undoInPlace(doc: Json, inverse: readonly InverseOperation[]): void {
  for (let i = inverse.length - 1; i >= 0; i--) step(doc, inverse[i]);
}

/**
 * Applies a batch to a copy of `doc` and validates the result. Errors name the operation and the field
 * at fault, so the API can answer 422 with `body.operations[i].path` and the like; nothing is changed.
 */
export function applyOperations(doc: VideoDocument, ops: readonly VideoOperation[]): ApplyResult {
  const next: Json = structuredClone(doc);
  const inverse: InverseOperation[] = [];
  for (let i = 0; i < ops.length; i++) {
    if (ops[i].kind === "set" && ops[i].value === undefined)
      return { ok: false, errors: [{ index: i, field: "value", message: "A set operation needs a value" }] };
    try {
      inverse.push(step(next, ops[i]));
    } catch (err) {
      if (err instanceof StepError) return { ok: false, errors: [{ index: i, field: err.field, message: err.message }] };
      throw err;
    }
  }
  const issues = documentIssues(next);
  if (issues.length > 0) return { ok: false, errors: issues.map((issue) => blame(ops, next, issue.path, issue.message)) };
  return { ok: true, document: next, inverse };
}

/** The last operation that wrote where a document problem is: a problem at clips/c1/start_ms blames `set c1 /start_ms`. */
function blame(ops: readonly VideoOperation[], doc: Json, at: (string | number)[], message: string): OperationError {
  const [collection, id, ...rest] = at.map(String);
  const target = collection === "settings" ? PROJECT_TARGET : id;
  const inner = collection === "settings" ? [id, ...rest].filter((s) => s !== undefined) : rest;
  const where =
    collection === "settings" ? `settings${formatPointer(inner)}` : id === undefined ? (collection ?? "the document") : `${id}${formatPointer(inner)}`;
  if (target !== undefined && (collection === "settings" || collection === "tracks" || collection === "clips")) {
    for (let i = ops.length - 1; i >= 0; i--) {
      let segments: string[];
      try {
        segments = parsePointer(ops[i].path);
      } catch {
        continue;
      }
      if (ops[i].target === target && pathsOverlap(segments, inner)) {
        return { index: i, field: ops[i].kind === "set" ? "value" : "path", message: `${message} (at ${where})` };
      }
    }
    // A clip left pointing at a track this batch removed: blame the removal.
    const trackId = collection === "clips" && inner.length === 1 && inner[0] === "track_id" ? doc.clips[id]?.track_id : undefined;
    const removal = ops.findLastIndex((op) => op.kind === "remove" && op.path === "" && op.target === trackId);
    if (removal >= 0) return { index: removal, field: "target", message: `Clip ${id} is still on track ${trackId}: remove or move its clips first` };
  }
  return { index: null, field: null, message: `${message} (at ${where})` };
}

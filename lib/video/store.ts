import { and, between, eq, gt, inArray, sql } from "drizzle-orm";
import { videoConflicts, videoMutations, videoProjectRevisions, videoProjects, videoRevisionTouches } from "../../db/schema";
import type { Tx } from "../db/client";
import { notFound } from "../errors";
import { newId } from "../ids";
import { replaceMediaUsages } from "../media/usage";
import type { InverseOperation, VideoOperation } from "./apply";
import type { VideoDocument } from "./document";
import { decodeTouch, groupForStorage, type Touch } from "./footprint";
import { keepsSnapshot, planReconstruction, rebuildBackward, rebuildForward, type LaterRevision } from "./rebase";

/** Persistence of video projects: the row, its revisions, what they touched, mutation ids and branches. */

export type ProjectRow = typeof videoProjects.$inferSelect;

/** The project row, locked until the transaction ends: a project's batches run one at a time. */
export async function lockProject(tx: Tx, id: string, workspaceId?: string): Promise<ProjectRow> {
  const [row] = await tx
    .select()
    .from(videoProjects)
    .where(and(eq(videoProjects.id, id), workspaceId === undefined ? undefined : eq(videoProjects.workspaceId, workspaceId)))
    .for("update");
  if (!row) throw notFound("video project");
  return row;
}

/** The document at `base` (< head), rebuilt from head or from the nearest snapshot, whichever is less work. */
export async function documentAt(tx: Tx, project: ProjectRow, base: number): Promise<VideoDocument> {
  const plan = planReconstruction(base, project.headRevision);
  const inRange = (first: number, last: number) => and(eq(videoProjectRevisions.projectId, project.id), between(videoProjectRevisions.revision, first, last));
  if (plan.from === "head") {
    const newer = await tx
      .select({ revision: videoProjectRevisions.revision, inverse: videoProjectRevisions.inverse })
      .from(videoProjectRevisions)
      .where(inRange(plan.first, plan.last));
    return rebuildBackward(
      project.document as VideoDocument,
      newer.map((r) => ({ revision: r.revision, inverse: r.inverse as InverseOperation[] })),
    );
  }
  const [snapshot] = await tx
    .select({ snapshot: videoProjectRevisions.snapshot })
    .from(videoProjectRevisions)
    .where(and(eq(videoProjectRevisions.projectId, project.id), eq(videoProjectRevisions.revision, plan.snapshot)));
  if (!snapshot?.snapshot) throw new Error(`video project ${project.id} has no snapshot at revision ${plan.snapshot}`);
  const older =
    plan.first > plan.last
      ? []
      : await tx
          .select({ revision: videoProjectRevisions.revision, operations: videoProjectRevisions.operations })
          .from(videoProjectRevisions)
          .where(inRange(plan.first, plan.last));
  return rebuildForward(
    snapshot.snapshot as VideoDocument,
    older.map((r) => ({ revision: r.revision, operations: r.operations as VideoOperation[] })),
  );
}

/** Revisions after `base` that touched any of `targets`: one index range per target on (project_id, target, revision). */
export async function laterTouches(tx: Tx, projectId: string, base: number, targets: string[]): Promise<LaterRevision[]> {
  if (targets.length === 0) return [];
  const rows = await tx
    .select()
    .from(videoRevisionTouches)
    .where(and(eq(videoRevisionTouches.projectId, projectId), inArray(videoRevisionTouches.target, targets), gt(videoRevisionTouches.revision, base)));
  const byRevision = new Map<number, Touch[]>();
  for (const row of rows) {
    const list = byRevision.get(row.revision) ?? [];
    for (const encoded of row.touches) list.push(decodeTouch(row.target, encoded));
    byRevision.set(row.revision, list);
  }
  return [...byRevision.entries()].map(([revision, touches]) => ({ revision, touches }));
}

export interface NewRevision {
  kind: "applied" | "rebased" | "branch";
  mutationId: string;
  baseRevision: number;
  operations: readonly VideoOperation[];
  inverse: InverseOperation[];
  footprint: Touch[];
  document: VideoDocument;
  userId: string;
}

/** Makes `document` the new head (head + 1) and records the revision and what it touched. */
export async function commitRevision(tx: Tx, project: ProjectRow, change: NewRevision): Promise<ProjectRow> {
  const revision = project.headRevision + 1;
  // Compare-and-set on head as well as the row lock: a lost lock can never overwrite a newer head.
  const [row] = await tx
    .update(videoProjects)
    .set({ document: change.document, headRevision: revision, updatedBy: change.userId, updatedAt: sql`now()` })
    .where(and(eq(videoProjects.id, project.id), eq(videoProjects.headRevision, project.headRevision)))
    .returning();
  if (!row) throw new Error(`video project ${project.id} moved past revision ${project.headRevision} while locked`);
  await tx.insert(videoProjectRevisions).values({
    projectId: project.id,
    revision,
    kind: change.kind,
    mutationId: change.mutationId,
    baseRevision: change.baseRevision,
    operations: change.operations,
    inverse: change.inverse,
    snapshot: keepsSnapshot(revision) ? change.document : null,
    createdBy: change.userId,
  });
  await recordVideoMedia(tx, row.workspaceId, row.id, project.document as VideoDocument, change.document, "body.operations");
  const groups = groupForStorage(change.footprint);
  if (groups.length > 0) {
    await tx.insert(videoRevisionTouches).values(groups.map((g) => ({ projectId: project.id, target: g.target, revision, touches: g.touches })));
  }
  return row;
}

/** The first revision of a new project. */
export async function createProject(tx: Tx, values: { workspaceId: string; name: string; document: VideoDocument; userId: string }): Promise<ProjectRow> {
  const [row] = await tx
    .insert(videoProjects)
    .values({
      id: newId("vpr"),
      workspaceId: values.workspaceId,
      name: values.name,
      document: values.document,
      createdBy: values.userId,
      updatedBy: values.userId,
    })
    .returning();
  await tx
    .insert(videoProjectRevisions)
    .values({ projectId: row.id, revision: 1, kind: "create", operations: [], inverse: [], snapshot: values.document, createdBy: values.userId });
  await recordVideoMedia(tx, row.workspaceId, row.id, null, values.document, "body.document");
  return row;
}

export interface OpenedConflict {
  id: string;
  name: string;
}

/** A named branch (conflict-N, N from the project's counter) holding a batch that overlapped. */
export async function openConflict(
  tx: Tx,
  project: ProjectRow,
  batch: { mutationId: string; baseRevision: number; operations: readonly VideoOperation[]; overlapTargets: string[]; userId: string },
): Promise<OpenedConflict> {
  const number = project.nextConflictNumber;
  await tx
    .update(videoProjects)
    .set({ nextConflictNumber: number + 1 })
    .where(eq(videoProjects.id, project.id));
  const conflict = { id: newId("vcf"), name: `conflict-${number}` };
  await tx.insert(videoConflicts).values({
    ...conflict,
    projectId: project.id,
    workspaceId: project.workspaceId,
    number,
    mutationId: batch.mutationId,
    baseRevision: batch.baseRevision,
    headRevision: project.headRevision,
    operations: batch.operations,
    overlapTargets: batch.overlapTargets,
    createdBy: batch.userId,
  });
  return conflict;
}

export interface SeenMutation {
  revision: number;
  conflictId: string | null;
  conflictName: string | null;
  overlapTargets: string[];
}

export async function findMutation(tx: Tx, projectId: string, mutationId: string): Promise<SeenMutation | null> {
  const [row] = await tx
    .select({
      revision: videoMutations.revision,
      conflictId: videoMutations.conflictId,
      conflictName: videoConflicts.name,
      overlapTargets: videoMutations.overlapTargets,
    })
    .from(videoMutations)
    .leftJoin(videoConflicts, eq(videoConflicts.id, videoMutations.conflictId))
    .where(and(eq(videoMutations.projectId, projectId), eq(videoMutations.mutationId, mutationId)));
  return row ?? null;
}

export async function rememberMutation(
  tx: Tx,
  values: {
    projectId: string;
    mutationId: string;
    outcome: "applied" | "rebased" | "conflict";
    revision: number;
    conflictId?: string;
    overlapTargets?: string[];
    userId: string;
  },
): Promise<void> {
  await tx.insert(videoMutations).values({ ...values, createdBy: values.userId, overlapTargets: values.overlapTargets ?? [] });
}

const clipMedia = (doc: VideoDocument | null) =>
  [...new Set(Object.values(doc?.clips ?? {}).flatMap((clip) => (typeof clip.media_id === "string" ? [clip.media_id] : [])))].sort();

/** The media library items the clips show count as used by the project (only written when that set changes). */
async function recordVideoMedia(
  tx: Tx,
  workspaceId: string,
  projectId: string,
  before: VideoDocument | null,
  after: VideoDocument,
  location: string,
): Promise<void> {
  const next = clipMedia(after);
  if (before && clipMedia(before).join() === next.join()) return;
  await replaceMediaUsages(tx, { workspaceId, ownerType: "video_project", ownerId: projectId }, next, location);
}

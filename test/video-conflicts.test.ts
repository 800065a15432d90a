import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, videoConflicts } from "../db/schema";
import { sampleVideoDocument } from "../lib/video/sample";
import type { paths } from "./helpers/api-types";
import { client } from "./helpers/client";
import { api, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { expectData, expectProblem, nextLink, type Schemas, videoDocumentOf } from "./helpers/typed";

type User = Awaited<ReturnType<typeof newUser>>;
type Operation = Schemas["VideoMutationOperation"];
type ConflictQuery = NonNullable<paths["/video-projects/{id}/conflicts"]["get"]["parameters"]["query"]>;

async function setup() {
  const owner = await newUser();
  const viewer = await newUser();
  const ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
  const created = await client(owner.token).POST("/video-projects", { body: { workspace_id: ws, name: "Teaser", document: sampleVideoDocument() } });
  return { owner, viewer, ws, id: expectData(created, 201).id };
}

let seq = 0;
const mutate = (user: User, ws: string, id: string, base: number, operations: Operation[], mutationId = `c-${Date.now()}-${seq++}`) =>
  client(user.token).POST("/video-projects/{id}/mutations", {
    params: { path: { id } },
    body: { workspace_id: ws, base_revision: base, mutation_id: mutationId, operations },
  });
const resolve = (user: User, id: string, conflictId: string, resolution: Schemas["ResolveVideoConflictRequest"]["resolution"], expected: number) =>
  client(user.token).POST("/video-projects/{id}/conflicts/{conflict_id}/resolve", {
    params: { path: { id, conflict_id: conflictId } },
    body: { resolution, expected_revision: expected },
  });
const listConflicts = (user: User, id: string, query: ConflictQuery = {}) =>
  client(user.token).GET("/video-projects/{id}/conflicts", { params: { path: { id }, query } });

describe("concurrent batches", () => {
  it("20 batches on the same base: one applied, the rest rebased or conflict, nothing lost", async () => {
    const { owner, ws, id } = await setup();
    // Every batch writes its own key (disjoint); every fourth also renames the intro clip (those overlap each other).
    const batches = Array.from({ length: 20 }, (_, i) => {
      const ops: Operation[] = [{ kind: "set", target: "clip-title", path: `/meta/k${i}`, value: i }];
      if (i % 4 === 0) ops.push({ kind: "set", target: "clip-intro", path: "/name", value: `name-${i}` });
      return ops;
    });
    const results = (await Promise.all(batches.map((ops, i) => mutate(owner, ws, id, 1, ops, `batch-${i}`)))).map((r) => expectData(r));
    const outcomes = results.map((r) => r.outcome);
    const count = (o: string) => outcomes.filter((x) => x === o).length;
    expect(count("applied")).toBe(1);
    expect(count("applied") + count("rebased") + count("conflict")).toBe(20);
    // Of the five renames exactly one got in (the first to run); the other four overlap it.
    const renames = outcomes.filter((_, i) => i % 4 === 0);
    expect(renames.filter((o) => o === "conflict")).toHaveLength(4);
    expect(count("conflict")).toBe(4);

    const final = expectData(await client(owner.token).GET("/video-projects/{id}", { params: { path: { id } } }));
    expect(final.head_revision).toBe(1 + count("applied") + count("rebased"));
    const meta = videoDocumentOf(final).clips["clip-title"].meta as Record<string, unknown>;
    outcomes.forEach((o, i) => {
      if (o === "conflict") expect(meta).not.toHaveProperty(`k${i}`);
      else expect(meta[`k${i}`]).toBe(i);
    });
    const winner = outcomes.findIndex((o, i) => i % 4 === 0 && o !== "conflict");
    expect(videoDocumentOf(final).clips["clip-intro"].name).toBe(`name-${winner}`);
    // Revisions are dense and each success reported its own.
    const revisions = results
      .filter((r) => r.outcome !== "conflict")
      .map((r) => r.revision)
      .sort((a, b) => a - b);
    expect(revisions).toEqual(Array.from({ length: 16 }, (_, i) => i + 2));
    const branches = expectData(await listConflicts(owner, id));
    expect(branches.map((b) => b.name).sort()).toEqual(["conflict-1", "conflict-2", "conflict-3", "conflict-4"]);
  });

  it("the same mutation_id sent concurrently takes effect once", async () => {
    const { owner, ws, id } = await setup();
    const ops: Operation[] = [{ kind: "set", target: "clip-title", path: "/name", value: "Once" }];
    const results = await Promise.all(Array.from({ length: 5 }, () => mutate(owner, ws, id, 1, ops, "same-id")));
    const outcomes = results.map((r) => r.data?.outcome).sort();
    expect(outcomes).toEqual(["applied", "duplicate", "duplicate", "duplicate", "duplicate"]);
    expect(results.every((r) => r.data?.revision === 2)).toBe(true);
  });
});

describe("conflict branches", () => {
  /** A project at revision 2 with one open branch (conflict-1) that would set the title clip's style. */
  async function withConflict() {
    const s = await setup();
    await mutate(s.owner, s.ws, s.id, 1, [{ kind: "set", target: "clip-title", path: "/style/color", value: "#ff0000" }]);
    const c = await mutate(
      s.owner,
      s.ws,
      s.id,
      1,
      [{ kind: "set", target: "clip-title", path: "/style", value: { color: "#00ff00", size: 80 } }],
      "branch-batch",
    );
    const conflict = expectData(c);
    expect(conflict.outcome).toBe("conflict");
    if (conflict.conflict_id === null) throw new Error("a conflict without its conflict_id");
    return { ...s, conflictId: conflict.conflict_id };
  }

  it("lists branches with their batch, open first, to viewers too", async () => {
    const { owner, viewer, ws, id, conflictId } = await withConflict();
    const second = await mutate(owner, ws, id, 1, [{ kind: "remove", target: "clip-title", path: "/style/color" }]);
    expect(second.data?.conflict_name).toBe("conflict-2");
    expect((await resolve(owner, id, conflictId, "keep_head", 2)).response.status).toBe(200);

    const list = expectData(await listConflicts(viewer, id));
    expect(list.map((b) => [b.name, b.state])).toEqual([
      ["conflict-2", "open"],
      ["conflict-1", "resolved"],
    ]);
    expect(list[1]).toMatchObject({
      $schema: expect.stringMatching(/VideoConflict\.json$/),
      id: conflictId,
      project_id: id,
      mutation_id: "branch-batch",
      base_revision: 1,
      head_revision: 2,
      operations: [{ kind: "set", target: "clip-title", path: "/style", value: { color: "#00ff00", size: 80 } }],
      overlap_targets: ["clip-title"],
      resolution: "keep_head",
      resolved_revision: 2,
      created_by_user_id: owner.id,
      resolved_by_user_id: owner.id,
    });
    expect((await listConflicts(viewer, id, { state: "open" })).data).toHaveLength(1);
    const page = await listConflicts(viewer, id, { limit: 1 });
    expect(page.data).toHaveLength(1);
    const next = nextLink(page.response);
    expect(next).toBeDefined();
    // The next page through its Link's cursor, with the Link's limit.
    const cursor = next?.searchParams.get("cursor") ?? undefined;
    expect(cursor).toBeDefined();
    const limit = next?.searchParams.has("limit") ? Number(next.searchParams.get("limit")) : undefined;
    const rest = expectData(await listConflicts(viewer, id, { cursor, limit }));
    expect(rest.map((b) => b.name)).toEqual(["conflict-1"]);
    // Raw: state=maybe is outside the parameter's enum, which the types forbid.
    expectRawProblem(await api("GET", `/video-projects/${id}/conflicts?state=maybe`, { token: viewer.token }), 422, "validation-error");
  });

  it("keep_head leaves head as it is", async () => {
    const { owner, id, conflictId } = await withConflict();
    const res = expectData(await resolve(owner, id, conflictId, "keep_head", 2));
    expect(res).toMatchObject({
      $schema: expect.stringMatching(/ResolveVideoConflictResponse\.json$/),
      conflict: { state: "resolved", resolution: "keep_head", resolved_revision: 2 },
      project: { head_revision: 2 },
    });
    expect(videoDocumentOf(res.project).clips["clip-title"].style).toEqual({ color: "#ff0000", size: 64 });
    expectProblem(await resolve(owner, id, conflictId, "apply_branch", 2), 409, "not-editable");
  });

  it("apply_branch applies the batch on head as a new revision, with compare-and-set on expected_revision", async () => {
    const { owner, id, conflictId } = await withConflict();
    const stale = await resolve(owner, id, conflictId, "apply_branch", 1);
    expect(expectProblem(stale, 409, "revision-conflict").current_revision).toBe(2);
    const res = expectData(await resolve(owner, id, conflictId, "apply_branch", 2));
    expect(res).toMatchObject({ conflict: { state: "resolved", resolution: "apply_branch", resolved_revision: 3 }, project: { head_revision: 3 } });
    expect(videoDocumentOf(res.project).clips["clip-title"].style).toEqual({ color: "#00ff00", size: 80 });
    const audits = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, conflictId)));
    expect(audits.map((a) => a.action)).toEqual(["video_project.conflict.apply_branch"]);
  });

  it("409 when the branch no longer applies to head; 404 for a branch of another project", async () => {
    const { owner, ws, id, conflictId } = await withConflict();
    await mutate(owner, ws, id, 2, [{ kind: "remove", target: "clip-title", path: "" }]);
    const res = await resolve(owner, id, conflictId, "apply_branch", 3);
    expect(expectProblem(res, 409, "not-editable").errors?.[0].location).toBe("conflict.operations[0].target");
    const [row] = await withDb((db) => db.select().from(videoConflicts).where(eq(videoConflicts.id, conflictId)));
    expect(row.state).toBe("open");
    const other = await setup();
    expectProblem(await resolve(other.owner, other.id, conflictId, "keep_head", 1), 404, "not-found");
    // Raw: "merge" is outside the resolution's enum, which the types forbid.
    expectRawProblem(
      await api("POST", `/video-projects/${id}/conflicts/${conflictId}/resolve`, { token: owner.token, json: { resolution: "merge", expected_revision: 3 } }),
      422,
      "validation-error",
    );
  });
});

import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, media, mediaUsages, videoProjectRevisions, videoRevisionTouches } from "../db/schema";
import { sampleVideoDocument } from "../lib/video/sample";
import { client } from "./helpers/client";
import { api, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { expectData, expectProblem, locationsOf, type Problem, type Schemas } from "./helpers/typed";

type User = Awaited<ReturnType<typeof newUser>>;
type Operation = Schemas["VideoMutationOperation"];

/**
 * A project's document as a VideoDocument: VideoProjectResponse declares `document` as an open object, though
 * the answer carries the whole VideoDocument (the tests read its tracks and clips).
 */
const documentOf = (project: Schemas["VideoProjectResponse"]) => project.document as unknown as Schemas["VideoDocument"];

async function setup() {
  const owner = await newUser();
  const viewer = await newUser();
  const ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
  const created = await client(owner.token).POST("/video-projects", {
    body: { workspace_id: ws, name: "Launch teaser", document: sampleVideoDocument() },
  });
  return { owner, viewer, ws, project: expectData(created, 201) };
}

let seq = 0;
const mutate = (user: User, ws: string, projectId: string, base: number, operations: Operation[], mutationId = `m-${Date.now()}-${seq++}`) =>
  client(user.token).POST("/video-projects/{id}/mutations", {
    params: { path: { id: projectId } },
    body: { workspace_id: ws, base_revision: base, mutation_id: mutationId, operations },
  });
const get = (user: User, id: string) => client(user.token).GET("/video-projects/{id}", { params: { path: { id } } });

describe("create and get", () => {
  it("creates an empty project with default settings when no document is sent", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const created = expectData(await client(owner.token).POST("/video-projects", { body: { workspace_id: ws, name: "Blank" } }), 201);
    expect(created).toMatchObject({
      name: "Blank",
      head_revision: 1,
      document: { schema_version: 1, settings: { width: 1080, height: 1920, fps: 30 }, tracks: {}, clips: {} },
    });
    const added = expectData(
      await mutate(owner, ws, created.id, 1, [{ kind: "set", target: "track-main", path: "", value: { kind: "video", name: "Main", order: 0 } }]),
    );
    expect(documentOf(added.project).tracks["track-main"]).toMatchObject({ kind: "video" });
  });

  it("creates at head_revision 1 with every field, and reads it back", async () => {
    const { owner, viewer, ws, project } = await setup();
    expect(project).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/VideoProjectResponse.json",
      id: expect.stringMatching(/^vpr_/),
      workspace_id: ws,
      name: "Launch teaser",
      document: sampleVideoDocument(),
      head_revision: 1,
      sync_status: "pending",
      attention_reason: null,
      preview_object_key: null,
      retention_expires_at: null,
      trashed_at: null,
      created_by_user_id: owner.id,
      updated_by_user_id: owner.id,
    });
    expect(Date.parse(project.created_at)).not.toBeNaN();
    const read = await get(viewer, project.id);
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(project);
  });

  it("422 names the document field; viewers may not create; Idempotency-Key replays", async () => {
    const owner = await newUser();
    const viewer = await newUser();
    const ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
    const asOwner = client(owner.token);
    const bad = sampleVideoDocument();
    bad.clips["clip-intro"].start_ms = -5;
    const res = await asOwner.POST("/video-projects", { body: { workspace_id: ws, name: "x", document: bad } });
    expect(locationsOf(expectProblem(res, 422, "validation-error"))).toContain("body.document.clips.clip-intro.start_ms");
    const orphan = sampleVideoDocument();
    orphan.clips["clip-intro"].track_id = "nope";
    expect(locationsOf((await asOwner.POST("/video-projects", { body: { workspace_id: ws, name: "x", document: orphan } })).error)).toContain(
      "body.document.clips.clip-intro.track_id",
    );
    expectProblem(
      await client(viewer.token).POST("/video-projects", { body: { workspace_id: ws, name: "x", document: sampleVideoDocument() } }),
      403,
      "forbidden",
    );

    const once = () =>
      asOwner.POST("/video-projects", {
        params: { header: { "idempotency-key": "vp-once" } },
        body: { workspace_id: ws, name: "Once", document: sampleVideoDocument() },
      });
    const first = await once();
    const again = await once();
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data?.id).toBe(first.data?.id);
  });

  it("404 across workspaces, for reads and mutations alike", async () => {
    const { owner, ws, project } = await setup();
    const stranger = await newUser();
    const theirWs = await newWorkspace(stranger);
    expectProblem(await get(stranger, project.id), 404, "not-found");
    expectProblem(await get(owner, "vpr_doesnotexist"), 404, "not-found");
    const ops: Operation[] = [{ kind: "set", target: "clip-title", path: "/name", value: "x" }];
    expectProblem(await mutate(stranger, ws, project.id, 1, ops), 404, "not-found");
    // A member of another workspace naming their own workspace still cannot reach this project.
    expectProblem(await mutate(stranger, theirWs, project.id, 1, ops), 404, "not-found");
    expectProblem(await client(stranger.token).GET("/video-projects/{id}/conflicts", { params: { path: { id: project.id } } }), 404, "not-found");
    expect((await get(owner, project.id)).data?.head_revision).toBe(1);
  });

  it("403 for a viewer mutating or resolving", async () => {
    const { viewer, ws, project } = await setup();
    expectProblem(await mutate(viewer, ws, project.id, 1, [{ kind: "set", target: "clip-title", path: "/name", value: "x" }]), 403, "forbidden");
    expectProblem(
      await client(viewer.token).POST("/video-projects/{id}/conflicts/{conflict_id}/resolve", {
        params: { path: { id: project.id, conflict_id: "vcf_x" } },
        body: { resolution: "keep_head", expected_revision: 1 },
      }),
      403,
      "forbidden",
    );
  });
});

describe("mutation outcomes", () => {
  it("applied → rebased → conflict → duplicate", async () => {
    const { owner, ws, project } = await setup();
    const colour: Operation[] = [{ kind: "set", target: "clip-title", path: "/style/color", value: "#ff0000" }];
    const a = expectData(await mutate(owner, ws, project.id, 1, colour, "m-a"));
    expect(a).toMatchObject({
      $schema: expect.stringMatching(/VideoProjectMutationResponse\.json$/),
      outcome: "applied",
      revision: 2,
      conflict_id: null,
      conflict_name: null,
      overlap_targets: [],
    });
    expect(a.project).toMatchObject({ head_revision: 2, $schema: expect.stringMatching(/VideoProjectResponse\.json$/) });
    expect(documentOf(a.project).clips["clip-title"]).toHaveProperty("style.color", "#ff0000");

    // Stale (base 1) but disjoint: another clip, and a sibling path of the same clip (/styles is not under /style).
    const b = await mutate(
      owner,
      ws,
      project.id,
      1,
      [
        { kind: "set", target: "clip-intro", path: "/name", value: "Cold open" },
        { kind: "set", target: "clip-title", path: "/styles", value: ["bold"] },
      ],
      "m-b",
    );
    expect(b.data).toMatchObject({ outcome: "rebased", revision: 3, overlap_targets: [] });
    const bDocument = documentOf(expectData(b).project);
    expect(bDocument.clips["clip-title"]).toMatchObject({ style: { color: "#ff0000" }, styles: ["bold"] });
    expect(bDocument.clips["clip-intro"].name).toBe("Cold open");

    // Stale and overlapping: /style is a prefix of /style/color, changed in revision 2.
    const c = expectData(await mutate(owner, ws, project.id, 1, [{ kind: "set", target: "clip-title", path: "/style", value: { color: "#00ff00" } }], "m-c"));
    expect(c).toMatchObject({
      outcome: "conflict",
      revision: 3,
      conflict_id: expect.stringMatching(/^vcf_/),
      conflict_name: "conflict-1",
      overlap_targets: ["clip-title"],
    });
    expect(c.project.head_revision).toBe(3);
    expect(documentOf(c.project).clips["clip-title"]).toHaveProperty("style.color", "#ff0000");

    const again = expectData(await mutate(owner, ws, project.id, 3, [{ kind: "set", target: "clip-title", path: "/name", value: "ignored" }], "m-a"));
    expect(again).toMatchObject({ outcome: "duplicate", revision: 2, conflict_id: null, overlap_targets: [] });
    expect(again.project.head_revision).toBe(3);
    const againConflict = await mutate(owner, ws, project.id, 1, [], "m-c");
    expectProblem(againConflict, 422, "validation-error"); // an empty batch is refused before anything else
    const dupConflict = await mutate(owner, ws, project.id, 1, [{ kind: "remove", target: "clip-title", path: "" }], "m-c");
    expect(dupConflict.data).toMatchObject({
      outcome: "duplicate",
      revision: 3,
      conflict_id: c.conflict_id,
      conflict_name: "conflict-1",
      overlap_targets: ["clip-title"],
    });

    const final = expectData(await get(owner, project.id));
    expect(final.head_revision).toBe(3);
    expect(final.updated_by_user_id).toBe(owner.id);

    // Each revision recorded what it touched, per target.
    const touches = await withDb((db) => db.select().from(videoRevisionTouches).where(eq(videoRevisionTouches.projectId, project.id)));
    expect(touches.map((t) => [t.revision, t.target, t.touches]).sort()).toEqual([
      [2, "clip-title", ["w/style/color"]],
      [3, "clip-intro", ["w/name"]],
      [3, "clip-title", ["w/styles"]],
    ]);
    const audits = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, project.id))),
    );
    expect(audits.map((e) => e.action).sort()).toEqual([
      "video_project.create",
      "video_project.mutation.applied",
      "video_project.mutation.conflict",
      "video_project.mutation.rebased",
    ]);
  });

  it("creates and removes tracks and clips; a clip added to a track someone removed is a conflict", async () => {
    const { owner, ws, project } = await setup();
    const [song] = await insertMediaRows(ws, [{ mimeType: "audio/mpeg", mediaType: "audio" }]);
    const r2 = await mutate(owner, ws, project.id, 1, [
      { kind: "set", target: "track-music", path: "", value: { kind: "audio", name: "Music", order: -1 } },
      { kind: "set", target: "clip-song", path: "", value: { track_id: "track-music", start_ms: 0, duration_ms: 8000, media_id: song } },
    ]);
    expect(r2.data?.outcome).toBe("applied");
    const r3 = await mutate(owner, ws, project.id, 2, [
      { kind: "remove", target: "clip-song", path: "" },
      { kind: "remove", target: "track-music", path: "" },
    ]);
    expect(r3.data?.outcome).toBe("applied");
    expect(Object.keys(documentOf(expectData(r3).project).tracks).sort()).toEqual(["track-text", "track-video"]);
    const late = await mutate(owner, ws, project.id, 2, [
      { kind: "set", target: "clip-late", path: "", value: { track_id: "track-music", start_ms: 0, duration_ms: 10 } },
    ]);
    expect(late.data).toMatchObject({ outcome: "conflict", overlap_targets: ["track-music"] });
    // Two people adding clips to one track do not conflict.
    const one = await mutate(owner, ws, project.id, 3, [
      { kind: "set", target: "clip-x", path: "", value: { track_id: "track-video", start_ms: 4000, duration_ms: 10 } },
    ]);
    const two = await mutate(owner, ws, project.id, 3, [
      { kind: "set", target: "clip-y", path: "", value: { track_id: "track-video", start_ms: 5000, duration_ms: 10 } },
    ]);
    expect([one.data?.outcome, two.data?.outcome]).toEqual(["applied", "rebased"]);
  });
});

describe("validation before anything is written", () => {
  it("422 names the operation and field", async () => {
    const { owner, ws, project } = await setup();
    const cases: [unknown[], string][] = [
      [[{ kind: "set", target: "clip-title", path: "style/color", value: 1 }], "body.operations[0].path"],
      [[{ kind: "set", target: "clip-title", path: "/a~2b", value: 1 }], "body.operations[0].path"],
      [[{ kind: "move", target: "clip-title", path: "/a" }], "body.operations[0].kind"],
      [[{ kind: "set", target: "clip-title", path: "/a" }], "body.operations[0].value"],
      [[{ kind: "set", target: "clip title!", path: "/a", value: 1 }], "body.operations[0].target"],
      [[{ kind: "set", target: "clip-title", path: "/a", value: JSON.parse("[".repeat(40) + "]".repeat(40)) }], "body.operations[0].value"],
      [
        [
          { kind: "set", target: "clip-title", path: "/name", value: "ok" },
          { kind: "set", target: "clip-missing", path: "/name", value: "x" },
        ],
        "body.operations[1].target",
      ],
      [[{ kind: "remove", target: "clip-title", path: "/style/weight" }], "body.operations[0].path"],
      [[{ kind: "set", target: "clip-title", path: "/start_ms", value: "soon" }], "body.operations[0].value"],
      [[{ kind: "remove", target: "clip-title", path: "/duration_ms" }], "body.operations[0].path"],
      [[{ kind: "set", target: "project", path: "/fps", value: 1000 }], "body.operations[0].value"],
      [[{ kind: "remove", target: "track-video", path: "" }], "body.operations[0].target"],
      [[{ kind: "set", target: "clip-title", path: "/style/color/x", value: 1 }], "body.operations[0].path"],
    ];
    for (const [operations, location] of cases) {
      // Raw: the table sends operations the types forbid (kind "move"), and measures the answer's text.
      const res = await api<Problem>("POST", `/video-projects/${project.id}/mutations`, {
        token: owner.token,
        json: { workspace_id: ws, base_revision: 1, mutation_id: `m-${Date.now()}-${seq++}`, operations },
      });
      expectRawProblem(res, 422, "validation-error");
      expect(locationsOf(res.body), JSON.stringify(operations).slice(0, 200)).toContain(location);
      expect(res.text.length).toBeLessThan(5_000);
    }
    const ahead = await mutate(owner, ws, project.id, 2, [{ kind: "set", target: "clip-title", path: "/name", value: "x" }]);
    expect(locationsOf(expectProblem(ahead, 422, "validation-error"))).toEqual(["body.base_revision"]);
    const hugeId = await client(owner.token).POST("/video-projects/{id}/mutations", {
      params: { path: { id: project.id } },
      body: { workspace_id: ws, base_revision: 1, mutation_id: "x".repeat(100_000), operations: [{ kind: "remove", target: "clip-title", path: "/name" }] },
    });
    expect(locationsOf(hugeId.error)).toContain("body.mutation_id");
    const after = expectData(await get(owner, project.id));
    expect(after.head_revision).toBe(1);
    expect(after.document).toEqual(sampleVideoDocument());
  });

  it("judges a stale batch against its own base revision, rebuilt across snapshots", async () => {
    const { owner, ws, project } = await setup();
    let head = 1;
    for (let i = 0; i < 70; i++) {
      const res = await mutate(owner, ws, project.id, head, [{ kind: "set", target: "clip-intro", path: `/meta/k${i}`, value: i }]);
      const body = expectData(res);
      expect(body.outcome).toBe("applied");
      head = body.revision;
    }
    expect(head).toBe(71);
    // /meta/k60 exists at head but not at revision 3: removing it is invalid there.
    const invalid = await mutate(owner, ws, project.id, 3, [
      { kind: "remove", target: "clip-title", path: "/text" },
      { kind: "remove", target: "clip-intro", path: "/meta/k60" },
    ]);
    expect(locationsOf(expectProblem(invalid, 422, "validation-error"))).toEqual(["body.operations[1].path"]);
    // /meta/k1 exists at revision 3 (made by revision 3 itself): valid there, and overlapping nothing later.
    const far = expectData(await mutate(owner, ws, project.id, 3, [{ kind: "remove", target: "clip-intro", path: "/meta/k1" }]));
    expect(far).toMatchObject({ outcome: "rebased", revision: 72 });
    expect(documentOf(far.project).clips["clip-intro"].meta).not.toHaveProperty("k1");
    // Close to head (rebuilt backwards from head) and past the snapshot at 64 (rebuilt forward from it).
    const near = await mutate(owner, ws, project.id, 70, [{ kind: "set", target: "clip-intro", path: "/meta/k68", value: "x" }]);
    expect(near.data?.outcome).toBe("rebased");
    const mid = await mutate(owner, ws, project.id, 66, [{ kind: "set", target: "clip-intro", path: "/meta/k69", value: "y" }]);
    expect(mid.data).toMatchObject({ outcome: "conflict", overlap_targets: ["clip-intro"] });
    const snapshots = await withDb((db) =>
      db
        .select({ revision: videoProjectRevisions.revision, snapshot: videoProjectRevisions.snapshot })
        .from(videoProjectRevisions)
        .where(eq(videoProjectRevisions.projectId, project.id)),
    );
    expect(
      snapshots
        .filter((r) => r.snapshot !== null)
        .map((r) => r.revision)
        .sort((x, y) => x - y),
    ).toEqual([1, 64]);
  });
});

/** The parts of the OpenAPI document this test reads. */
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, unknown> } | undefined>>;
}

describe("the API description", () => {
  it("declares the video operations and serves the document's JSON Schema", async () => {
    // Raw: the OpenAPI document and the JSON Schemas are served outside the operations the document describes.
    const doc = (await api<OpenApiDocument>("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths["/video-projects"])).toEqual(["post"]);
    expect(doc.paths["/video-projects/{id}/mutations"].post?.responses["501"]).toBeUndefined();
    expect(doc.paths["/video-projects/{id}/conflicts"].get).toBeDefined();
    expect(doc.paths["/video-projects/{id}/conflicts/{conflict_id}/resolve"].post).toBeDefined();
    const schema = await api<{ properties: Record<string, unknown> }>("GET", "/api/v1/schemas/VideoDocument.json");
    expect(schema.status, schema.text).toBe(200);
    expect(schema.body.properties).toHaveProperty("clips");
    expect((await api("GET", "/api/v1/schemas/VideoConflict.json")).status).toBe(200);
  });
});

describe("media the clips show", () => {
  it("counts as used by the project, so the library will not purge it", async () => {
    const { owner, ws, project } = await setup();
    const mediaId = `med_video_${Date.now()}`;
    await withDb((db) =>
      db.insert(media).values({ id: mediaId, workspaceId: ws, objectKey: `${ws}/${mediaId}`, mimeType: "video/mp4", mediaType: "video", size: 1000 }),
    );
    const usage = async () => (await withDb((db) => db.select({ n: media.usageCount }).from(media).where(eq(media.id, mediaId))))[0].n;
    expect(await usage()).toBe(0);
    const set = await mutate(owner, ws, project.id, 1, [{ kind: "set", target: "clip-intro", path: "/media_id", value: mediaId }]);
    expectData(set);
    expect(await usage()).toBe(1);
    const owners = await withDb((db) => db.select().from(mediaUsages).where(eq(mediaUsages.mediaId, mediaId)));
    expect(owners).toEqual([expect.objectContaining({ ownerType: "video_project", ownerId: project.id })]);
    const cleared = await mutate(owner, ws, project.id, 2, [{ kind: "set", target: "clip-intro", path: "/media_id", value: null }]);
    expectData(cleared);
    expect(await usage()).toBe(0);
  });
});

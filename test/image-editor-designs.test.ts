import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, designRevisions, mediaUsages } from "../db/schema";
import { client } from "./helpers/client";
import { api, expectProblem as expectRawProblem, withDb } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { newTeam, type User } from "./helpers/team";
import { expectData, expectProblem, locationsOf, nextLink, type Problem, type Schemas } from "./helpers/typed";
import { sampleDocument } from "./image-editor-fixtures";

const team = newTeam;
type ImageDocument = Schemas["ImageDocument"];

const createDesign = (user: User, ws: string, document: ImageDocument = sampleDocument()) =>
  client(user.token).POST("/image-editor/designs", { body: { workspace_id: ws, document } });
const put = (user: User, id: string, expected_revision: number, document: ImageDocument) =>
  client(user.token).PUT("/image-editor/designs/{id}", { params: { path: { id } }, body: { expected_revision, document } });
const getDesign = (user: User | undefined, id: string) => client(user?.token).GET("/image-editor/designs/{id}", { params: { path: { id } } });
const revisionsOf = (user: User, id: string, query: { limit?: number; cursor?: string } = {}) =>
  client(user.token).GET("/image-editor/designs/{id}/revisions", { params: { path: { id }, query } });
const restore = (user: User, id: string, revisionId: string, expected_revision: number) =>
  client(user.token).POST("/image-editor/designs/{id}/revisions/{revision_id}/restore", {
    params: { path: { id, revision_id: revisionId } },
    body: { expected_revision },
  });
const usagesOf = (designId: string) =>
  withDb((db) =>
    db
      .select({ mediaId: mediaUsages.mediaId })
      .from(mediaUsages)
      .where(and(eq(mediaUsages.ownerType, "design"), eq(mediaUsages.ownerId, designId))),
  ).then((rows) => rows.map((r) => r.mediaId).sort());

describe("designs", () => {
  it("creates, reads and saves new revisions; can_edit follows the caller's role", async () => {
    const { editor, viewer, ws } = await team();
    const created = expectData(await createDesign(editor, ws), 201);
    expect(created).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/DesignResponse.json",
      id: expect.stringMatching(/^dsn_/),
      workspace_id: ws,
      revision: 1,
      can_edit: true,
      cover_preview_media_id: null,
      created_by_id: editor.id,
      document: sampleDocument(),
    });
    const id = created.id;

    const asViewer = await getDesign(viewer, id);
    expect(asViewer.response.status).toBe(200);
    expect(asViewer.data).toMatchObject({ id, revision: 1, can_edit: false, document: sampleDocument() });

    const next = sampleDocument();
    next.title = "Launch card v2";
    const [preview] = await insertMediaRows(ws, [{}]);
    next.pages[0].preview_media_id = preview;
    const saved = expectData(await put(editor, id, 1, next));
    expect(saved).toMatchObject({ revision: 2, document: next, cover_preview_media_id: preview, can_edit: true });
    expect(Date.parse(saved.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect((await getDesign(viewer, id)).data).toMatchObject({ revision: 2, document: next });

    expectProblem(await put(viewer, id, 2, next), 403, "forbidden");
    expectProblem(await createDesign(viewer, ws), 403, "forbidden");
    const trail = await withDb((db) => db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.targetId, id)));
    expect(trail.map((t) => t.action)).toEqual(["design.create", "design.update"]);
  });

  it("a retried create with the same Idempotency-Key replays the first answer and makes one design", async () => {
    const { editor, ws } = await team();
    const send = (document: ImageDocument) =>
      client(editor.token).POST("/image-editor/designs", { params: { header: { "idempotency-key": "design-once" } }, body: { workspace_id: ws, document } });
    const first = await send(sampleDocument());
    const again = await send(sampleDocument());
    expectData(first, 201);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(first.data);
    expectProblem(await send({ ...sampleDocument(), title: "Other" }), 422, "idempotency-key-reused");
    const created = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.workspaceId, ws), eq(auditEvents.action, "design.create"))),
    );
    expect(created).toHaveLength(1);
  });

  it("answers 404 across workspaces and for unknown designs, 401 without a token", async () => {
    const { editor, outsider, ws } = await team();
    const id = expectData(await createDesign(editor, ws), 201).id;
    expectProblem(await createDesign(outsider, ws), 404, "not-found");
    expectProblem(await getDesign(outsider, id), 404, "not-found");
    expectProblem(await put(outsider, id, 1, sampleDocument()), 404, "not-found");
    expectProblem(await revisionsOf(outsider, id), 404, "not-found");
    expectProblem(await restore(outsider, id, "drv_x", 1), 404, "not-found");
    expectProblem(await getDesign(editor, "dsn_missing"), 404, "not-found");
    expectProblem(await getDesign(undefined, id), 401, "unauthorized");
  });

  it("stale revisions get 409 with current_revision and change nothing", async () => {
    const { editor, ws } = await team();
    const id = expectData(await createDesign(editor, ws), 201).id;
    expect((await put(editor, id, 1, sampleDocument())).response.status).toBe(200);
    const stale = await put(editor, id, 1, { ...sampleDocument(), title: "Lost" });
    expect(expectProblem(stale, 409, "revision-conflict").current_revision).toBe(2);
    const head = expectData(await getDesign(editor, id));
    expect(head.revision).toBe(2);
    expect(head.document.title).toBe("Launch card");
  });

  it("of 10 concurrent saves holding the same revision exactly one wins; history has no gaps or duplicates", async () => {
    const { editor, ws } = await team();
    const id = expectData(await createDesign(editor, ws), 201).id;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => put(editor, id, 1, { ...sampleDocument(), title: `Writer ${i}` })));
    const winners = results.filter((r) => r.response.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.response.status === 409 && r.error?.current_revision === 2)).toHaveLength(9);
    const head = await getDesign(editor, id);
    expect(head.data).toMatchObject({ revision: 2, document: { title: expectData(winners[0]).document.title } });
    expect(expectData(await revisionsOf(editor, id)).revisions.map((r) => r.revision)).toEqual([2, 1]);
  });

  it("422 naming the field for bad documents", async () => {
    const { editor, ws } = await team();
    const opacity = sampleDocument();
    opacity.pages[0].layers[3].opacity = 2;
    const badType = sampleDocument();
    (badType.pages[0].layers[1] as { type: string }).type = "sticker";
    const cases: [unknown, string][] = [
      [opacity, "body.document.pages[0].layers[3].opacity"],
      [{ ...sampleDocument(), width_px: 0 }, "body.document.width_px"],
      [{ ...sampleDocument(), height_px: 9000 }, "body.document.height_px"],
      [{ ...sampleDocument(), title: "t".repeat(100_000) }, "body.document.title"],
      [badType, "body.document.pages[0].layers[1].type"],
      [{ ...sampleDocument(), export_defaults: { format: "bmp" } }, "body.document.export_defaults.format"],
      [{ ...sampleDocument(), pages: "none" }, "body.document.pages"],
      ["not a document", "body.document"],
    ];
    for (const [document, location] of cases) {
      // Raw: the table sends documents the types forbid (a string, pages: "none", an unknown layer type or format),
      // and measures the answer's text.
      const res = await api<Problem>("POST", "/image-editor/designs", { token: editor.token, json: { workspace_id: ws, document } });
      expectRawProblem(res, 422, "validation-error");
      expect(locationsOf(res.body)).toContain(location);
      expect(res.text.length).toBeLessThan(5000);
    }
    const id = expectData(await createDesign(editor, ws), 201).id;
    const onPut = await put(editor, id, 1, opacity);
    expect(expectProblem(onPut, 422, "validation-error").errors?.[0]).toMatchObject({ location: "body.document.pages[0].layers[3].opacity", value: 2 });
  });

  it("records the media a design uses and follows each revision", async () => {
    const { editor, ws } = await team();
    const [photo, bg, other] = await insertMediaRows(ws, [{}, {}, {}]);
    const doc = sampleDocument(photo);
    doc.pages[0].background = { type: "image", image: { media_id: bg, fit: "cover" } };
    const id = expectData(await createDesign(editor, ws, doc), 201).id;
    expect(await usagesOf(id)).toEqual([bg, photo].sort());
    expect((await put(editor, id, 1, sampleDocument(other))).response.status).toBe(200);
    expect(await usagesOf(id)).toEqual([other]);
    const first = expectData(await revisionsOf(editor, id)).revisions.find((r) => r.revision === 1);
    if (!first) throw new Error("revision 1 is not listed");
    await restore(editor, id, first.id, 2);
    expect(await usagesOf(id)).toEqual([bg, photo].sort());
  });
});

describe("design revisions and restore", () => {
  it("lists revisions newest first and restores one as a new head, leaving history intact", async () => {
    const { editor, viewer, ws } = await team();
    const id = expectData(await createDesign(editor, ws), 201).id;
    for (const [rev, title] of [
      [1, "Second"],
      [2, "Third"],
    ] as const)
      expect((await put(editor, id, rev, { ...sampleDocument(), title })).response.status).toBe(200);

    const listed = expectData(await revisionsOf(viewer, id));
    expect(listed.$schema).toMatch(/DesignRevisionList\.json$/);
    expect(listed.revisions).toEqual(
      [3, 2, 1].map((revision) => ({ id: expect.stringMatching(/^drv_/), revision, created_at: expect.stringMatching(/Z$/), created_by_id: editor.id })),
    );
    const first = listed.revisions[2];
    const before = await withDb((db) => db.select().from(designRevisions).where(eq(designRevisions.designId, id)));

    expectProblem(await restore(viewer, id, first.id, 3), 403, "forbidden");
    const stale = await restore(editor, id, first.id, 2);
    expect(expectProblem(stale, 409, "revision-conflict").current_revision).toBe(3);

    const restored = expectData(await restore(editor, id, first.id, 3));
    expect(restored).toMatchObject({
      $schema: expect.stringMatching(/DesignResponse\.json$/),
      id,
      revision: 4,
      can_edit: true,
      document: sampleDocument(),
    });
    expect((await getDesign(viewer, id)).data).toMatchObject({ revision: 4, document: { title: "Launch card" } });

    // Earlier revisions are untouched; the restore is one more row that remembers its source.
    const after = await withDb((db) => db.select().from(designRevisions).where(eq(designRevisions.designId, id)));
    expect(after).toHaveLength(4);
    for (const row of before) expect(after.find((r) => r.id === row.id)).toEqual(row);
    expect(after.find((r) => r.revision === 4)).toMatchObject({ restoredFromId: first.id, document: sampleDocument() });
    expect(expectData(await revisionsOf(viewer, id)).revisions.map((r) => r.revision)).toEqual([4, 3, 2, 1]);
    const trail = await withDb((db) =>
      db
        .select({ action: auditEvents.action })
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, id), eq(auditEvents.action, "design.restore"))),
    );
    expect(trail).toHaveLength(1);
  });

  it("a revision of another design, or an unknown one, is 404", async () => {
    const { editor, ws } = await team();
    const a = expectData(await createDesign(editor, ws), 201).id;
    const b = expectData(await createDesign(editor, ws), 201).id;
    const revOfB = expectData(await revisionsOf(editor, b)).revisions[0].id;
    expectProblem(await restore(editor, a, revOfB, 1), 404, "not-found");
    expectProblem(await restore(editor, a, "drv_missing", 1), 404, "not-found");
    const bad = await restore(editor, a, revOfB, 1.5);
    expect(expectProblem(bad, 422, "validation-error").errors?.[0].location).toBe("body.expected_revision");
  });

  it("pages the revision list with a cursor", async () => {
    const { editor, ws } = await team();
    const id = expectData(await createDesign(editor, ws), 201).id;
    for (let rev = 1; rev <= 4; rev++) await put(editor, id, rev, { ...sampleDocument(), title: `v${rev + 1}` });
    const first = await revisionsOf(editor, id, { limit: 2 });
    expect(expectData(first).revisions.map((r) => r.revision)).toEqual([5, 4]);
    // The next page through its Link's cursor, with the Link's limit.
    const next = nextLink(first.response);
    if (!next) throw new Error("no next page");
    const cursor = next.searchParams.get("cursor") ?? undefined;
    expect(cursor).toBeDefined();
    const limit = next.searchParams.has("limit") ? Number(next.searchParams.get("limit")) : undefined;
    const second = await revisionsOf(editor, id, { cursor, limit });
    expect(expectData(second).revisions.map((r) => r.revision)).toEqual([3, 2]);
    expectProblem(await revisionsOf(editor, id, { cursor: "garbage!" }), 422, "validation-error");
  });
});

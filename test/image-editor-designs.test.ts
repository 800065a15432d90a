import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, designRevisions, mediaUsages } from "../db/schema";
import { api, withDb } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { sampleDocument } from "./image-editor-fixtures";
import { expectProblem, newTeam, type User } from "./helpers/team";

const team = newTeam;

const createDesign = (user: User, ws: string, document: unknown = sampleDocument()) =>
  api("POST", "/image-editor/designs", { token: user.token, json: { workspace_id: ws, document } });
const put = (user: User, id: string, expected_revision: number, document: unknown) =>
  api("PUT", `/image-editor/designs/${id}`, { token: user.token, json: { expected_revision, document } });
const revisionsOf = (user: User, id: string, query = "") => api("GET", `/image-editor/designs/${id}/revisions${query}`, { token: user.token });
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
    const created = await createDesign(editor, ws);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/DesignResponse.json",
      id: expect.stringMatching(/^dsn_/),
      workspace_id: ws,
      revision: 1,
      can_edit: true,
      cover_preview_media_id: null,
      created_by_id: editor.id,
      document: sampleDocument(),
    });
    const id = created.body.id;

    const asViewer = await api("GET", `/image-editor/designs/${id}`, { token: viewer.token });
    expect(asViewer.status).toBe(200);
    expect(asViewer.body).toMatchObject({ id, revision: 1, can_edit: false, document: sampleDocument() });

    const next = sampleDocument();
    next.title = "Launch card v2";
    const [preview] = await insertMediaRows(ws, [{}]);
    next.pages[0].preview_media_id = preview;
    const saved = await put(editor, id, 1, next);
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ revision: 2, document: next, cover_preview_media_id: preview, can_edit: true });
    expect(Date.parse(saved.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
    expect((await api("GET", `/image-editor/designs/${id}`, { token: viewer.token })).body).toMatchObject({ revision: 2, document: next });

    expectProblem(await put(viewer, id, 2, next), 403, "forbidden");
    expectProblem(await createDesign(viewer, ws), 403, "forbidden");
    const trail = await withDb((db) => db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.targetId, id)));
    expect(trail.map((t) => t.action)).toEqual(["design.create", "design.update"]);
  });

  it("a retried create with the same Idempotency-Key replays the first answer and makes one design", async () => {
    const { editor, ws } = await team();
    const send = (document: unknown) =>
      api("POST", "/image-editor/designs", { token: editor.token, json: { workspace_id: ws, document }, headers: { "idempotency-key": "design-once" } });
    const first = await send(sampleDocument());
    const again = await send(sampleDocument());
    expect(first.status, first.text).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
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
    const id = (await createDesign(editor, ws)).body.id;
    expectProblem(await createDesign(outsider, ws), 404, "not-found");
    expectProblem(await api("GET", `/image-editor/designs/${id}`, { token: outsider.token }), 404, "not-found");
    expectProblem(await put(outsider, id, 1, sampleDocument()), 404, "not-found");
    expectProblem(await revisionsOf(outsider, id), 404, "not-found");
    expectProblem(
      await api("POST", `/image-editor/designs/${id}/revisions/drv_x/restore`, { token: outsider.token, json: { expected_revision: 1 } }),
      404,
      "not-found",
    );
    expectProblem(await api("GET", "/image-editor/designs/dsn_missing", { token: editor.token }), 404, "not-found");
    expectProblem(await api("GET", `/image-editor/designs/${id}`), 401, "unauthorized");
  });

  it("stale revisions get 409 with current_revision and change nothing", async () => {
    const { editor, ws } = await team();
    const id = (await createDesign(editor, ws)).body.id;
    expect((await put(editor, id, 1, sampleDocument())).status).toBe(200);
    const stale = await put(editor, id, 1, { ...sampleDocument(), title: "Lost" });
    expectProblem(stale, 409, "revision-conflict");
    expect(stale.body.current_revision).toBe(2);
    const head = await api("GET", `/image-editor/designs/${id}`, { token: editor.token });
    expect(head.body.revision).toBe(2);
    expect(head.body.document.title).toBe("Launch card");
  });

  it("of 10 concurrent saves holding the same revision exactly one wins; history has no gaps or duplicates", async () => {
    const { editor, ws } = await team();
    const id = (await createDesign(editor, ws)).body.id;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => put(editor, id, 1, { ...sampleDocument(), title: `Writer ${i}` })));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.current_revision === 2)).toHaveLength(9);
    const head = await api("GET", `/image-editor/designs/${id}`, { token: editor.token });
    expect(head.body).toMatchObject({ revision: 2, document: { title: winners[0].body.document.title } });
    expect((await revisionsOf(editor, id)).body.revisions.map((r: { revision: number }) => r.revision)).toEqual([2, 1]);
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
      const res = await createDesign(editor, ws, document);
      expectProblem(res, 422, "validation-error");
      expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
      expect(res.text.length).toBeLessThan(5000);
    }
    const id = (await createDesign(editor, ws)).body.id;
    const onPut = await put(editor, id, 1, opacity);
    expectProblem(onPut, 422, "validation-error");
    expect(onPut.body.errors[0]).toMatchObject({ location: "body.document.pages[0].layers[3].opacity", value: 2 });
  });

  it("records the media a design uses and follows each revision", async () => {
    const { editor, ws } = await team();
    const [photo, bg, other] = await insertMediaRows(ws, [{}, {}, {}]);
    const doc = sampleDocument(photo);
    doc.pages[0].background = { type: "image", image: { media_id: bg, fit: "cover" } };
    const id = (await createDesign(editor, ws, doc)).body.id;
    expect(await usagesOf(id)).toEqual([bg, photo].sort());
    expect((await put(editor, id, 1, sampleDocument(other))).status).toBe(200);
    expect(await usagesOf(id)).toEqual([other]);
    const first = (await revisionsOf(editor, id)).body.revisions.find((r: { revision: number }) => r.revision === 1);
    await api("POST", `/image-editor/designs/${id}/revisions/${first.id}/restore`, { token: editor.token, json: { expected_revision: 2 } });
    expect(await usagesOf(id)).toEqual([bg, photo].sort());
  });
});

describe("design revisions and restore", () => {
  it("lists revisions newest first and restores one as a new head, leaving history intact", async () => {
    const { editor, viewer, ws } = await team();
    const id = (await createDesign(editor, ws)).body.id;
    for (const [rev, title] of [
      [1, "Second"],
      [2, "Third"],
    ] as const)
      expect((await put(editor, id, rev, { ...sampleDocument(), title })).status).toBe(200);

    const listed = await revisionsOf(viewer, id);
    expect(listed.status).toBe(200);
    expect(listed.body.$schema).toMatch(/DesignRevisionList\.json$/);
    expect(listed.body.revisions).toEqual(
      [3, 2, 1].map((revision) => ({ id: expect.stringMatching(/^drv_/), revision, created_at: expect.stringMatching(/Z$/), created_by_id: editor.id })),
    );
    const first = listed.body.revisions[2];
    const before = await withDb((db) => db.select().from(designRevisions).where(eq(designRevisions.designId, id)));

    expectProblem(
      await api("POST", `/image-editor/designs/${id}/revisions/${first.id}/restore`, { token: viewer.token, json: { expected_revision: 3 } }),
      403,
      "forbidden",
    );
    const stale = await api("POST", `/image-editor/designs/${id}/revisions/${first.id}/restore`, { token: editor.token, json: { expected_revision: 2 } });
    expectProblem(stale, 409, "revision-conflict");
    expect(stale.body.current_revision).toBe(3);

    const restored = await api("POST", `/image-editor/designs/${id}/revisions/${first.id}/restore`, { token: editor.token, json: { expected_revision: 3 } });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({
      $schema: expect.stringMatching(/DesignResponse\.json$/),
      id,
      revision: 4,
      can_edit: true,
      document: sampleDocument(),
    });
    expect((await api("GET", `/image-editor/designs/${id}`, { token: viewer.token })).body).toMatchObject({ revision: 4, document: { title: "Launch card" } });

    // Earlier revisions are untouched; the restore is one more row that remembers its source.
    const after = await withDb((db) => db.select().from(designRevisions).where(eq(designRevisions.designId, id)));
    expect(after).toHaveLength(4);
    for (const row of before) expect(after.find((r) => r.id === row.id)).toEqual(row);
    expect(after.find((r) => r.revision === 4)).toMatchObject({ restoredFromId: first.id, document: sampleDocument() });
    expect((await revisionsOf(viewer, id)).body.revisions.map((r: { revision: number }) => r.revision)).toEqual([4, 3, 2, 1]);
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
    const a = (await createDesign(editor, ws)).body.id;
    const b = (await createDesign(editor, ws)).body.id;
    const revOfB = (await revisionsOf(editor, b)).body.revisions[0].id;
    expectProblem(
      await api("POST", `/image-editor/designs/${a}/revisions/${revOfB}/restore`, { token: editor.token, json: { expected_revision: 1 } }),
      404,
      "not-found",
    );
    expectProblem(
      await api("POST", `/image-editor/designs/${a}/revisions/drv_missing/restore`, { token: editor.token, json: { expected_revision: 1 } }),
      404,
      "not-found",
    );
    const bad = await api("POST", `/image-editor/designs/${a}/revisions/${revOfB}/restore`, { token: editor.token, json: { expected_revision: 1.5 } });
    expectProblem(bad, 422, "validation-error");
    expect(bad.body.errors[0].location).toBe("body.expected_revision");
  });

  it("pages the revision list with a cursor", async () => {
    const { editor, ws } = await team();
    const id = (await createDesign(editor, ws)).body.id;
    for (let rev = 1; rev <= 4; rev++) await put(editor, id, rev, { ...sampleDocument(), title: `v${rev + 1}` });
    const first = await revisionsOf(editor, id, "?limit=2");
    expect(first.body.revisions.map((r: { revision: number }) => r.revision)).toEqual([5, 4]);
    const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")![1]);
    const second = await api("GET", next.pathname + next.search, { token: editor.token });
    expect(second.body.revisions.map((r: { revision: number }) => r.revision)).toEqual([3, 2]);
    expectProblem(await revisionsOf(editor, id, "?cursor=garbage!"), 422, "validation-error");
  });
});

import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, media, mediaPurgedObjects, mediaUsages } from "../db/schema";
import { openDb } from "../lib/db/client";
import { purgeMedia, type PurgeOptions } from "../lib/media/purge";
import { clearMediaUsages, replaceMediaUsages } from "../lib/media/usage";
import purgeWorker from "../queues/media-purge";
import { client } from "./helpers/client";
import { api, newUser, newWorkspace, slugOf, withDb } from "./helpers/harness";
import { call, fixture, type MediaStorage, startMediaStorage, uploadForm } from "./helpers/media";
import { clientWithEnv, expectData, expectError, type Problem, type Schemas } from "./helpers/typed";

type User = Awaited<ReturnType<typeof newUser>>;
let storage: MediaStorage;
let owner: User;
let editor: User;
let viewer: User;
let outsider: User;
let ws: string;

beforeAll(async () => {
  storage = await startMediaStorage();
  [owner, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
  ws = await newWorkspace(owner, [
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
});
afterAll(() => storage?.dispose());

/** An upload by the editor. Raw: POST /media takes a multipart body, which the typed client does not build. */
const put = async (name = "image-40x30.png", extra: { tags?: string; retentionClass?: string } = {}) => {
  const form = uploadForm({ workspaceId: ws, bytes: fixture(name), filename: name, ...extra });
  const res = await call<Schemas["MediaItem"]>(storage.env, "POST", "/media", { token: editor.token, body: form });
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const patchMedia = (user: User, id: string, body: Schemas["UpdateMediaRequest"]) => client(user.token).PATCH("/media/{id}", { params: { path: { id } }, body });
const getMedia = (user: User, id: string) => client(user.token).GET("/media/{id}", { params: { path: { id } } });
const trash = (user: User, id: string) => client(user.token).POST("/media/{id}/trash", { params: { path: { id } } });
const restore = (user: User, id: string) => client(user.token).POST("/media/{id}/restore", { params: { path: { id } } });
const rowOf = async (id: string) => (await withDb((db) => db.select().from(media).where(eq(media.id, id))))[0];
const stored = async (id: string, workspaceId = ws) => (await storage.bucket.head(`workspaces/${workspaceId}/media/${id}`)) !== null;
const auditOf = (id: string) => withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, id)).orderBy(auditEvents.seq));
const setRow = (id: string, values: Partial<typeof media.$inferInsert>) => withDb((db) => db.update(media).set(values).where(eq(media.id, id)));
const ago = (ms: number) => new Date(Date.now() - ms);
/** One purge run with a database handle of its own, as the worker does. */
async function purge(bucket: R2Bucket = storage.bucket, opts: PurgeOptions = {}) {
  const handle = openDb(storage.env);
  try {
    return await purgeMedia(handle.db, bucket, opts);
  } finally {
    await handle.close();
  }
}
const useBy = (ownerId: string, ids: string[]) =>
  withDb((db) => db.transaction((tx) => replaceMediaUsages(tx, { workspaceId: ws, ownerType: "design", ownerId }, ids)));

describe("PATCH /media/{id}", () => {
  it("changes only what it is given; tags are normalised and searchable; audited", async () => {
    const item = await put("photo-32x48.jpg", { tags: "old" });
    const res = expectData(await patchMedia(editor, item.id, { alt_text: "  A card ", tags: [" Red ", "red", "BLUE"], is_favorite: true }));
    expect(res).toMatchObject({ id: item.id, alt_text: "A card", tags: ["red", "blue"], is_favorite: true, width: 32, mime_type: "image/jpeg" });
    expect(res.$schema).toMatch(/MediaItem\.json$/);

    const only = await patchMedia(editor, item.id, { is_favorite: false });
    expect(only.data).toMatchObject({ alt_text: "A card", tags: ["red", "blue"], is_favorite: false });
    const cleared = await patchMedia(editor, item.id, { alt_text: null });
    expect(cleared.data?.alt_text).toBeNull();

    const search = async (q: string) =>
      expectData(await client(viewer.token).GET("/media", { params: { query: { workspace_id: ws, search: q } } })).media.map((m) => m.id);
    expect(await search("blue")).toContain(item.id);
    expect(await search("old")).not.toContain(item.id);
    expect((await auditOf(item.id)).filter((e) => e.action === "media.update")).toHaveLength(3);
  });

  it("moves an item between temporary and the library", async () => {
    const item = await put("image-40x30.png", { retentionClass: "temporary" });
    const kept = await patchMedia(editor, item.id, { retention_class: "library" });
    expect(kept.data?.retention_class).toBe("library");
    expect((await rowOf(item.id)).expiresAt).toBeNull();
  });

  it("422 for nothing to change, bad tags or wrong types; 403 viewers; 404 strangers and unknown ids", async () => {
    const item = await put();
    const empty = await patchMedia(editor, item.id, {});
    expect(expectError(empty, 422).errors?.[0].location).toBe("body");
    expect((await patchMedia(editor, item.id, { tags: ["a,b"] })).error?.errors?.[0].location).toBe("body.tags[0]");
    expect((await patchMedia(editor, item.id, { tags: ["x".repeat(60)] })).response.status).toBe(422);
    // Raw: is_favorite as a string, which the types forbid.
    const wrongType = await api<Problem>("PATCH", `/media/${item.id}`, { token: editor.token, json: { is_favorite: "yes" } });
    expect(wrongType.body.errors?.[0].location).toBe("body.is_favorite");
    expect((await patchMedia(editor, item.id, { alt_text: "x".repeat(1001) })).error?.errors?.[0].location).toBe("body.alt_text");
    expect(slugOf(expectError(await patchMedia(viewer, item.id, { is_favorite: true }), 403))).toBe("forbidden");
    expect((await patchMedia(outsider, item.id, { is_favorite: true })).response.status).toBe(404);
    expect((await patchMedia(owner, "med_nosuch", { is_favorite: true })).response.status).toBe(404);
    expect((await getMedia(outsider, item.id)).response.status).toBe(404);
    expect((await getMedia(viewer, item.id)).data?.id).toBe(item.id);
  });
});

describe("trash and restore", () => {
  it("trash sets trashed_at, manual, purge_after 30 days on; listed under trash only; restore undoes it", async () => {
    const item = await put();
    const trashed = expectData(await trash(editor, item.id));
    expect(trashed.trash_reason).toBe("manual");
    const days = (Date.parse(trashed.purge_after ?? "") - Date.parse(trashed.trashed_at ?? "")) / 86_400_000;
    expect(days).toBe(30);
    const ids = async (lifecycle: "trash" | "library") =>
      expectData(await client(viewer.token).GET("/media", { params: { query: { workspace_id: ws, lifecycle, limit: 200 } } })).media.map((m) => m.id);
    expect(await ids("trash")).toContain(item.id);
    expect(await ids("library")).not.toContain(item.id);

    // Trashing again changes nothing (same trashed_at, one audit entry).
    const again = await trash(editor, item.id);
    expect(again.data?.trashed_at).toBe(trashed.trashed_at);
    // The bytes can still be looked at while in the trash.
    const file = await clientWithEnv(viewer.token, storage.env).GET("/media/{id}/file", { params: { path: { id: item.id } }, parseAs: "arrayBuffer" });
    expect(file.response.status).toBe(200);

    const restored = await restore(editor, item.id);
    expect(restored.data).toMatchObject({ trashed_at: null, trash_reason: null, purge_after: null, retention_class: "library" });
    expect(await ids("library")).toContain(item.id);
    expect((await restore(editor, item.id)).response.status).toBe(200);
    expect((await auditOf(item.id)).map((e) => e.action)).toEqual(["media.upload", "media.trash", "media.restore"]);
  });

  it("403 for viewers, 404 for strangers", async () => {
    const item = await put();
    expect(slugOf(expectError(await trash(viewer, item.id), 403))).toBe("forbidden");
    expect((await trash(outsider, item.id)).response.status).toBe(404);
    expect((await restore(outsider, item.id)).response.status).toBe(404);
    expect((await rowOf(item.id)).trashedAt).toBeNull();
  });
});

describe("usage", () => {
  it("usage_count, last_used_at and can_delete follow media_usages", async () => {
    const [a, b] = [await put(), await put()];
    await useBy("dsg_usage_1", [a.id, b.id]);
    await useBy("dsg_usage_2", [a.id]);
    const get = async (id: string) => expectData(await getMedia(viewer, id));
    expect(await get(a.id)).toMatchObject({ usage_count: 2, can_delete: false });
    expect((await get(a.id)).last_used_at).not.toBeNull();
    await useBy("dsg_usage_1", [b.id]); // design 1 no longer uses a
    expect((await get(a.id)).usage_count).toBe(1);
    await withDb((db) => db.transaction((tx) => clearMediaUsages(tx, "design", ["dsg_usage_1", "dsg_usage_2"])));
    expect(await get(a.id)).toMatchObject({ usage_count: 0, can_delete: true, last_used_at: null });
    expect(await get(b.id)).toMatchObject({ usage_count: 0, last_used_at: null });
  });

  it("counters stay exact under concurrent owners", async () => {
    const item = await put();
    const owners = Array.from({ length: 12 }, (_, i) => `dsg_race_${item.id}_${i}`);
    await Promise.all(owners.map((o) => useBy(o, [item.id])));
    await Promise.all(owners.slice(0, 5).map((o) => withDb((db) => db.transaction((tx) => clearMediaUsages(tx, "design", [o])))));
    const [row] = await withDb((db) => db.select().from(media).where(eq(media.id, item.id)));
    const [{ n }] = await withDb((db) => db.select({ n: sql<number>`count(*)::int` }).from(mediaUsages).where(eq(mediaUsages.mediaId, item.id)));
    expect(n).toBe(7);
    expect(row.usageCount).toBe(7);
  });
});

describe("purge", () => {
  it("removes trash past purge_after and expired temporary uploads, with their bytes; keeps the rest", async () => {
    const [due, notYet, library, expired, fresh, restored] = [
      await put(),
      await put(),
      await put(),
      await put("image-40x30.png", { retentionClass: "temporary" }),
      await put("image-40x30.png", { retentionClass: "temporary" }),
      await put(),
    ];
    for (const item of [due, notYet, restored]) await trash(editor, item.id);
    await setRow(due.id, { purgeAfter: ago(1000) });
    await setRow(expired.id, { expiresAt: ago(1000) });
    await setRow(restored.id, { purgeAfter: ago(1000) });
    await restore(editor, restored.id);

    const report = await purge();
    const purged = report.purged.map((p) => p.id);
    expect(purged).toEqual(expect.arrayContaining([due.id, expired.id]));
    expect(report.purged.find((p) => p.id === due.id)?.reason).toBe("trash");
    expect(report.purged.find((p) => p.id === expired.id)?.reason).toBe("expired");
    for (const item of [notYet, library, fresh, restored]) expect(purged).not.toContain(item.id);

    for (const item of [due, expired]) {
      expect(await rowOf(item.id)).toBeUndefined();
      expect(await stored(item.id)).toBe(false);
      expect((await getMedia(owner, item.id)).response.status).toBe(404);
      const trail = (await auditOf(item.id)).filter((e) => e.action === "media.purge");
      expect(trail).toEqual([expect.objectContaining({ actorUserId: null, workspaceId: ws })]);
    }
    for (const item of [notYet, library, fresh, restored]) {
      expect(await rowOf(item.id)).toBeDefined();
      expect(await stored(item.id)).toBe(true);
    }
    const tombstones = await withDb((db) =>
      db
        .select()
        .from(mediaPurgedObjects)
        .where(inArray(mediaPurgedObjects.mediaId, [due.id, expired.id])),
    );
    expect(tombstones).toEqual([]);
  });

  it("never removes an item in use: keeps it, says why, and purges it once it is free", async () => {
    const inUse = await put();
    await useBy(`dsg_keep_${inUse.id}`, [inUse.id]);
    const trashed = await trash(editor, inUse.id);
    expect(trashed.data).toMatchObject({ can_delete: false, usage_count: 1 });
    await setRow(inUse.id, { purgeAfter: ago(1000) });

    const first = await purge();
    expect(first.purged.map((p) => p.id)).not.toContain(inUse.id);
    expect(first.kept).toContainEqual({ id: inUse.id, workspaceId: ws, usages: 1 });
    expect(await rowOf(inUse.id)).toMatchObject({ purgeBlockedReason: "in_use" });
    expect(await stored(inUse.id)).toBe(true);
    // Looked at again only later, not on every run.
    expect((await purge()).kept.map((k) => k.id)).not.toContain(inUse.id);

    await withDb((db) => db.transaction((tx) => clearMediaUsages(tx, "design", [`dsg_keep_${inUse.id}`])));
    const later = await purge(storage.bucket, { recheckAfterMs: 0 });
    expect(later.purged.map((p) => p.id)).toContain(inUse.id);
    expect(await stored(inUse.id)).toBe(false);
  });

  it("bytes that could not be deleted stay recorded and go on a later run", async () => {
    const item = await put();
    await trash(editor, item.id);
    await setRow(item.id, { purgeAfter: ago(1000) });
    const failing = {
      ...storage.bucket,
      delete: async () => {
        throw new Error("storage unavailable");
      },
    } as unknown as R2Bucket;
    const report = await purge(failing);
    expect(report.purged.map((p) => p.id)).toContain(item.id);
    expect(report.pendingObjects).toBeGreaterThanOrEqual(1);
    expect(await rowOf(item.id)).toBeUndefined();
    const [tombstone] = await withDb((db) => db.select().from(mediaPurgedObjects).where(eq(mediaPurgedObjects.mediaId, item.id)));
    expect(tombstone).toMatchObject({ attempts: 1, lastError: "storage unavailable" });
    expect(await stored(item.id)).toBe(true);

    await purge();
    expect(await stored(item.id)).toBe(false);
    expect(await withDb((db) => db.select().from(mediaPurgedObjects).where(eq(mediaPurgedObjects.mediaId, item.id)))).toEqual([]);
  });

  it("the worker drains on POST /drain, and refuses to run without a bucket", async () => {
    const item = await put();
    await trash(editor, item.id);
    await setRow(item.id, { purgeAfter: ago(1000) });
    const secret = "drain-secret-for-tests-0123456789abcdefghijklmnop";
    const drain = () => new Request("http://worker/drain", { method: "POST", headers: { authorization: `Bearer ${secret}` } });
    const res = await purgeWorker.fetch(drain(), { ...storage.env, DRAIN_SECRET: secret });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { purged: { id: string }[] }).purged.map((p) => p.id)).toContain(item.id);
    expect(await stored(item.id)).toBe(false);
    const { MEDIA_BUCKET: _, ...unbound } = storage.env;
    expect((await purgeWorker.fetch(drain(), { ...unbound, DRAIN_SECRET: secret })).status).toBe(503);
    expect((await purgeWorker.fetch(new Request("http://worker/other"), storage.env)).status).toBe(404);
  });
});

import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, media } from "../db/schema";
import { newUser, newWorkspace, withDb, expectProblem } from "./helpers/harness";
import { call, fixture, startMediaStorage, upload, uploadForm, type MediaStorage } from "./helpers/media";

type User = Awaited<ReturnType<typeof newUser>>;
let storage: MediaStorage;
let owner: User;
let viewer: User;
let outsider: User;
let ws: string;

beforeAll(async () => {
  storage = await startMediaStorage();
  [owner, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser()]);
  ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
});
afterAll(() => storage?.dispose());

const rowsOf = (workspaceId: string) => withDb((db) => db.select().from(media).where(eq(media.workspaceId, workspaceId)));
const objectsOf = async (workspaceId: string) => (await storage.bucket.list({ prefix: `workspaces/${workspaceId}/` })).objects;

describe("POST /media detects from the bytes", () => {
  it.each([
    { file: "image-40x30.png", mime: "image/png", facts: { width: 40, height: 30, container_format: "png", duration_ms: null } },
    { file: "photo-32x48.jpg", mime: "image/jpeg", facts: { width: 32, height: 48 } },
    { file: "anim-24x24.gif", mime: "image/gif", facts: { width: 24, height: 24 } },
    { file: "banner-60x20.webp", mime: "image/webp", facts: { width: 60, height: 20 } },
    {
      file: "clip-64x48-12fps-2s.mp4",
      mime: "video/mp4",
      facts: {
        width: 64,
        height: 48,
        duration_ms: 2000,
        frame_rate: 12,
        video_codec: "h264",
        video_profile: "Constrained Baseline",
        audio_codec: "aac",
        container_format: "mp4",
        rotation: 0,
      },
    },
    {
      file: "clip-48x64-25fps-1s.mov",
      mime: "video/quicktime",
      facts: {
        width: 48,
        height: 64,
        duration_ms: 1000,
        frame_rate: 25,
        video_codec: "h264",
        video_profile: "High",
        audio_codec: null,
        container_format: "mov",
      },
    },
    { file: "tone-500ms.wav", mime: "audio/wav", facts: { duration_ms: 500, audio_channels: 1, audio_codec: "pcm", width: null, height: null } },
    { file: "tone-1s.mp3", mime: "audio/mpeg", facts: { audio_codec: "mp3", audio_channels: 1 } },
  ])("$file → $mime", async ({ file, mime, facts }) => {
    const bytes = fixture(file);
    // The declared type and the name say nothing true: only the bytes count.
    const res = await upload(storage.env, owner.token, { workspaceId: ws, bytes, filename: "upload.bin", declaredType: "text/plain" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ mime_type: mime, size: bytes.byteLength, workspace_id: ws, original_filename: "upload.bin", ...facts });
    expect(res.body.$schema).toBe("http://localhost:8787/api/v1/schemas/MediaItem.json");
    expect(res.body.url).toBe(`http://localhost:8787/media/${res.body.id}/file`);
    expect(res.headers.get("location")).toBe(`http://localhost:8787/media/${res.body.id}`);
    expect(res.body).toMatchObject({
      asset_kind: "library",
      source: "upload",
      retention_class: "library",
      usage_count: 0,
      can_delete: true,
      is_favorite: false,
      trashed_at: null,
    });

    const stored = await call(storage.env, "GET", `/media/${res.body.id}/file`, { token: viewer.token });
    expect(stored.status).toBe(200);
    expect(stored.headers.get("content-type")).toBe(mime);
    expect(stored.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(stored.bytes).toEqual(bytes);
  });

  it("an MP3's duration is about its length (encoder padding included)", async () => {
    const res = await upload(storage.env, owner.token, { workspaceId: ws, bytes: fixture("tone-1s.mp3"), filename: "tone.mp3" });
    expect(res.body.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(res.body.duration_ms).toBeLessThan(1150);
  });

  it("a PNG named .jpg and declared image/jpeg is image/png", async () => {
    const res = await upload(storage.env, owner.token, {
      workspaceId: ws,
      bytes: fixture("image-40x30.png"),
      filename: "holiday.jpg",
      declaredType: "image/jpeg",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ mime_type: "image/png", original_filename: "holiday.jpg", width: 40, height: 30 });
  });

  it.each([
    { file: "notes.txt", name: "cover.png", type: "image/png" },
    { file: "doc.pdf", name: "poster.jpg", type: "image/jpeg" },
  ])("$file named $name is 415 and nothing is stored", async ({ file, name, type }) => {
    const other = await newWorkspace(owner);
    const res = await upload(storage.env, owner.token, { workspaceId: other, bytes: fixture(file), filename: name, declaredType: type });
    expectProblem(res, 415, "unsupported-media-type");
    expect(await rowsOf(other)).toEqual([]);
    expect(await objectsOf(other)).toEqual([]);
  });

  it("an empty file and a truncated video are 415", async () => {
    const other = await newWorkspace(owner);
    expectProblem(
      await upload(storage.env, owner.token, { workspaceId: other, bytes: new Uint8Array(0), filename: "empty.png" }),
      415,
      "unsupported-media-type",
    );
    const head = fixture("clip-48x64-25fps-1s.mov").slice(0, 64); // ftyp and the start of mdat: no movie header
    expectProblem(await upload(storage.env, owner.token, { workspaceId: other, bytes: head, filename: "cut.mov" }), 415, "unsupported-media-type");
    expect(await rowsOf(other)).toEqual([]);
  });

  it("413 over MEDIA_MAX_BYTES, nothing stored", async () => {
    const other = await newWorkspace(owner);
    const small = { ...storage.env, MEDIA_MAX_BYTES: "1000" };
    const bytes = fixture("clip-64x48-12fps-2s.mp4"); // about 8 KB
    const res = await upload(small, owner.token, { workspaceId: other, bytes, filename: "clip.mp4" });
    expectProblem(res, 413, "payload-too-large");
    expect(res.body.detail).toContain("1000 bytes");
    // Far over the limit the body limit answers before the form is even parsed.
    const huge = new Uint8Array(200_000);
    expectProblem(await upload(small, owner.token, { workspaceId: other, bytes: huge, filename: "big.png" }), 413, "payload-too-large");
    // The same for a caller who is not a member: the limit answers before the access rule reads the form.
    expectProblem(await upload(small, outsider.token, { workspaceId: other, bytes: huge, filename: "big.png" }), 413, "payload-too-large");
    expect(await rowsOf(other)).toEqual([]);
    expect(await objectsOf(other)).toEqual([]);
    // Under the limit the same workspace accepts a small file.
    expect((await upload(small, owner.token, { workspaceId: other, bytes: fixture("image-40x30.png"), filename: "ok.png" })).status).toBe(201);
  });

  it("normalises tags, keeps alt text, strips a path from the file name, and audits the upload", async () => {
    const res = await upload(storage.env, owner.token, {
      workspaceId: ws,
      bytes: fixture("photo-32x48.jpg"),
      filename: "C:\\fakepath\\Summer Photo.JPG",
      altText: "  A test card  ",
      tags: " Summer, beach ,summer,, BEACH ,Sea Side",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ tags: ["summer", "beach", "sea side"], alt_text: "A test card", original_filename: "Summer Photo.JPG" });
    const trail = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, res.body.id), eq(auditEvents.action, "media.upload"))),
    );
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({ actorUserId: owner.id, workspaceId: ws, targetType: "media" });
  });

  it("temporary uploads expire a week on", async () => {
    const res = await upload(storage.env, owner.token, { workspaceId: ws, bytes: fixture("image-40x30.png"), filename: "t.png", retentionClass: "temporary" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.retention_class).toBe("temporary");
    const [row] = await withDb((db) => db.select().from(media).where(eq(media.id, res.body.id)));
    expect(row.lifecycle).toBe("temporary");
    expect(row.expiresAt!.getTime() - row.createdAt.getTime()).toBeCloseTo(7 * 24 * 3600 * 1000, -4);
  });
});

describe("POST /media refuses", () => {
  it("viewers (403), non-members (404) and callers without a token (401)", async () => {
    const f = { workspaceId: ws, bytes: fixture("image-40x30.png"), filename: "a.png" };
    expectProblem(await upload(storage.env, viewer.token, f), 403, "forbidden");
    expectProblem(await upload(storage.env, outsider.token, f), 404, "not-found");
    expectProblem(await call(storage.env, "POST", "/media", { body: uploadForm(f) }), 401, "unauthorized");
  });

  it("422 naming the field for a missing file, a file sent as text, bad tags, an unknown retention class", async () => {
    const noFile = new FormData();
    noFile.set("workspace_id", ws);
    const res = await call(storage.env, "POST", "/media", { token: owner.token, body: noFile });
    expectProblem(res, 422, "validation-error");
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain("body.file");

    const asText = new FormData();
    asText.set("workspace_id", ws);
    asText.set("file", "not a file");
    expect((await call(storage.env, "POST", "/media", { token: owner.token, body: asText })).body.errors[0].location).toBe("body.file");

    const f = { workspaceId: ws, bytes: fixture("image-40x30.png"), filename: "a.png" };
    const longTag = await upload(storage.env, owner.token, { ...f, tags: "x".repeat(60) });
    expectProblem(longTag, 422, "validation-error");
    expect(longTag.body.errors[0].location).toBe("body.tags");
    const badClass = await upload(storage.env, owner.token, { ...f, retentionClass: "forever" });
    expect(badClass.body.errors[0].location).toBe("body.retention_class");
    const noWorkspace = await upload(storage.env, owner.token, { ...f, workspaceId: "" });
    expect(noWorkspace.body.errors[0].location).toBe("body.workspace_id");
  });

  it("415 for a JSON body", async () => {
    expectProblem(await call(storage.env, "POST", "/media", { token: owner.token, json: { workspace_id: ws } }), 415, "unsupported-media-type");
  });

  it.each([
    { what: "a body that is not a form", type: "multipart/form-data; boundary=xyz", body: "this is not a form" },
    { what: "no boundary", type: "multipart/form-data", body: '--xyz\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n' },
    {
      what: "another boundary than declared",
      type: "multipart/form-data; boundary=abc",
      body: '--xyz\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n',
    },
    {
      what: "a form cut off",
      type: "multipart/form-data; boundary=xyz",
      body: `--xyz\r\ncontent-disposition: form-data; name="workspace_id"\r\n\r\n${"w".repeat(40)}`,
    },
    { what: "an empty body", type: "multipart/form-data; boundary=xyz", body: "" },
  ])("400 bad-request for malformed multipart: $what, nothing stored", async ({ type, body }) => {
    const other = await newWorkspace(owner);
    const res = await call(storage.env, "POST", "/media", { token: owner.token, body, headers: { "content-type": type } });
    expectProblem(res, 400, "bad-request");
    expect(res.body.detail).toMatch(/multipart/i);
    expect(await rowsOf(other)).toEqual([]);
  });

  it("503 when no bucket is bound, nothing stored", async () => {
    const other = await newWorkspace(owner);
    const { MEDIA_BUCKET: _, ...unbound } = storage.env;
    const res = await upload(unbound, owner.token, { workspaceId: other, bytes: fixture("image-40x30.png"), filename: "a.png" });
    expectProblem(res, 503, "service-unavailable");
    expect(await rowsOf(other)).toEqual([]);
  });
});

describe("GET /media/{id}/file", () => {
  it("serves ranges, names the file, and is 404 across workspaces", async () => {
    const bytes = fixture("clip-64x48-12fps-2s.mp4");
    const up = await upload(storage.env, owner.token, { workspaceId: ws, bytes, filename: "Clip ü.mp4" });
    const path = `/media/${up.body.id}/file`;
    const part = await call(storage.env, "GET", path, { token: viewer.token, headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${bytes.byteLength}`);
    expect(part.bytes).toEqual(bytes.slice(100, 200));
    const tail = await call(storage.env, "GET", path, { token: viewer.token, headers: { range: "bytes=-10" } });
    expect(tail.bytes).toEqual(bytes.slice(-10));
    const whole = await call(storage.env, "GET", path, { token: viewer.token, headers: { range: "bytes=999999-" } });
    expect(whole.status).toBe(200); // unsatisfiable: the whole file
    expect(whole.headers.get("content-disposition")).toBe(`inline; filename="Clip _.mp4"; filename*=UTF-8''Clip%20%C3%BC.mp4`);
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");

    expectProblem(await call(storage.env, "GET", path, { token: outsider.token }), 404, "not-found");
    expectProblem(await call(storage.env, "GET", `/media/${up.body.id}`, { token: outsider.token }), 404, "not-found");
    expectProblem(await call(storage.env, "GET", "/media/med_nosuchthing/file", { token: owner.token }), 404, "not-found");
  });
});

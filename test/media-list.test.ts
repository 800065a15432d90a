import { beforeAll, describe, expect, it } from "vitest";
import { replaceMediaUsages } from "../lib/media/usage";
import type { paths } from "./helpers/api-types";
import { client } from "./helpers/client";
import { api, newUser, newWorkspace, slugOf, withDb } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { expectData, expectError, locationsOf, type Problem } from "./helpers/typed";

type User = Awaited<ReturnType<typeof newUser>>;
/** A listing's query besides its workspace. */
type Query = Omit<paths["/media"]["get"]["parameters"]["query"], "workspace_id">;
let owner: User;
let viewer: User;
let outsider: User;
let ws: string;
/** Item letter → id. */
const id: Record<string, string> = {};
const at = (iso: string) => new Date(iso);
/** Never due, so a purge run by another test file leaves these items alone. */
const FAR_FUTURE = at("2099-01-01T00:00:00Z");

beforeAll(async () => {
  [owner, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser()]);
  ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
  const rows = {
    A: {
      originalFilename: "Sunset.png",
      altText: "Golden hour",
      tags: ["sunset", "beach"],
      width: 1000,
      height: 1000,
      size: 500,
      isFavorite: true,
      createdAt: at("2026-03-01T00:00:00.000Z"),
    },
    B: {
      originalFilename: "beach-day.jpg",
      mimeType: "image/jpeg",
      tags: ["beach"],
      width: 1920,
      height: 1080,
      size: 3000,
      createdAt: at("2026-03-01T23:59:59.999Z"),
    },
    C: { originalFilename: "portrait.PNG", width: 1080, height: 1920, size: 2000, source: "design_export", createdAt: at("2026-03-02T00:00:00.000Z") },
    D: {
      originalFilename: "clip.mp4",
      mimeType: "video/mp4",
      mediaType: "video" as const,
      altText: "Timelapse of the sun",
      tags: ["sunset"],
      width: 1280,
      height: 720,
      size: 9000,
      createdAt: at("2026-02-28T12:00:00.000Z"),
    },
    E: {
      originalFilename: "voice.mp3",
      mimeType: "audio/mpeg",
      mediaType: "audio" as const,
      width: null,
      height: null,
      size: 100,
      createdAt: at("2026-03-03T00:00:00.000Z"),
    },
    F: {
      originalFilename: "old.png",
      tags: ["beach"],
      width: 500,
      height: 400,
      size: 700,
      trashedAt: at("2026-03-10T00:00:00Z"),
      trashReason: "manual",
      purgeAfter: FAR_FUTURE,
      createdAt: at("2026-03-04T00:00:00.000Z"),
    },
    G: { originalFilename: "draft.png", retentionClass: "temporary" as const, expiresAt: FAR_FUTURE, size: 50, createdAt: at("2026-03-05T00:00:00.000Z") },
    H: { originalFilename: "thumb.png", assetKind: "thumbnail", createdAt: at("2026-03-06T00:00:00.000Z") },
  };
  const ids = await insertMediaRows(ws, Object.values(rows));
  Object.keys(rows).forEach((letter, i) => (id[letter] = ids[i]));
  // A is used by a design, then D by a publication a little later: D is the most recently used.
  await withDb((db) => db.transaction((tx) => replaceMediaUsages(tx, { workspaceId: ws, ownerType: "design", ownerId: "dsg_list_test" }, [id.A])));
  await new Promise((r) => setTimeout(r, 20));
  await withDb((db) => db.transaction((tx) => replaceMediaUsages(tx, { workspaceId: ws, ownerType: "publication", ownerId: "pub_list_test" }, [id.D])));
  // Another workspace's items never show up.
  const other = await newWorkspace(owner);
  await insertMediaRows(other, [{ originalFilename: "Sunset.png", tags: ["beach", "sunset"] }]);
});

/** The letters of the items a listing returns, in order, and its total. */
async function list(query: Query, user: User = owner) {
  const body = expectData(await client(user.token).GET("/media", { params: { query: { workspace_id: ws, ...query } } }));
  const letter = (mediaId: string) => Object.keys(id).find((k) => id[k] === mediaId) ?? mediaId;
  return { letters: body.media.map((m) => letter(m.id)).join(""), total: body.total, body };
}

/** A listing's query as the test's name shows it, e.g. `type=image&aspect=landscape`. */
const label = (query: Query) => new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
/** Each case's name, query and the letters it lists. */
const named = (cases: [Query, string][]) => cases.map(([query, expected]) => [label(query), expected, query] as const);

describe("GET /media sorts", () => {
  it.each(
    named([
      [{}, "ECBAD"],
      [{ sort: "newest" }, "ECBAD"],
      [{ sort: "oldest" }, "DABCE"],
      [{ sort: "name" }, "BDCAE"],
      [{ sort: "size" }, "DBCAE"],
      [{ sort: "recently_used" }, "DAECB"],
    ]),
  )("%s → %s", async (_name, expected, query) => {
    const { letters, total } = await list(query);
    expect(letters).toBe(expected);
    expect(total).toBe(5);
  });
});

describe("GET /media filters", () => {
  it.each(
    named([
      [{ filter: "all" }, "ECBAD"],
      [{ filter: "used" }, "AD"],
      [{ filter: "unused" }, "ECB"],
      [{ filter: "favorites" }, "A"],
      [{ search: "sun" }, "AD"],
      [{ search: "SUNSET" }, "AD"],
      [{ search: "hour" }, "A"],
      [{ search: "BEACH" }, "BA"],
      [{ search: "day.j" }, "B"],
      [{ search: "%" }, ""],
      [{ search: "_" }, ""],
      [{ search: "png golden" }, ""], // never across the end of one field and the start of the next
      [{ type: "video" }, "D"],
      [{ type: "audio" }, "E"],
      [{ type: "image" }, "CBA"],
      [{ aspect: "square" }, "A"],
      [{ aspect: "portrait" }, "C"],
      [{ aspect: "landscape" }, "BD"],
      [{ type: "image", aspect: "landscape" }, "B"],
      [{ source: "design_export" }, "C"],
      [{ source: "upload" }, "EBAD"],
      [{ asset_kind: "thumbnail" }, "H"],
      [{ lifecycle: "library" }, "ECBAD"],
      [{ lifecycle: "trash" }, "F"],
      [{ lifecycle: "temporary" }, "G"],
      [{ lifecycle: "all" }, "GFECBAD"],
      [{ tag_id: "beach" }, "BA"],
      [{ tag_id: " BEACH " }, "BA"],
      [{ tag_ids: "beach,sunset" }, "A"],
      [{ tag_ids: "sunset", tag_id: "beach" }, "A"],
      [{ tag_ids: "beach,nosuch" }, ""],
      [{ lifecycle: "all", tag_ids: "beach" }, "FBA"],
      [{ untagged: true }, "EC"],
      [{ untagged: false }, "ECBAD"],
      [{ min_width: 1000 }, "CBAD"],
      [{ max_width: 1080 }, "CA"],
      [{ min_height: 1080, max_height: 1080 }, "B"],
      [{ min_width: 1001, max_width: 1100 }, "C"],
      [{ date_from: "2026-03-01", date_to: "2026-03-01" }, "BA"],
      [{ date_to: "2026-02-28" }, "D"],
      [{ date_from: "2026-03-02" }, "EC"],
      [{ filter: "used", sort: "recently_used", type: "video" }, "D"],
      [{ search: "sun", tag_id: "sunset", aspect: "square", filter: "favorites" }, "A"],
    ]),
  )("%s → %s", async (_name, expected, query) => {
    const { letters, total } = await list(query);
    expect(letters).toBe(expected);
    expect(total).toBe(expected.length);
  });

  it("total stays exact whatever limit and offset", async () => {
    expect(await list({ limit: 2 })).toMatchObject({ letters: "EC", total: 5 });
    expect(await list({ limit: 2, offset: 2 })).toMatchObject({ letters: "BA", total: 5 });
    expect(await list({ limit: 2, offset: 4 })).toMatchObject({ letters: "D", total: 5 });
    expect(await list({ limit: 2, offset: 10 })).toMatchObject({ letters: "", total: 5 });
    expect(await list({ tag_id: "beach", limit: 1, offset: 1, sort: "oldest" })).toMatchObject({ letters: "B", total: 2 });
  });

  it("returns MediaItems with $schema, usage from media_usages, and answers viewers", async () => {
    const { body } = await list({ filter: "used" }, viewer);
    expect(body.$schema).toBe("http://localhost:8787/api/v1/schemas/ListMediaOutputBody.json");
    const a = body.media.find((m) => m.id === id.A);
    expect(a).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/MediaItem.json",
      usage_count: 1,
      can_delete: false,
      tags: ["sunset", "beach"],
      is_favorite: true,
      original_filename: "Sunset.png",
      alt_text: "Golden hour",
    });
    expect(Date.parse(a?.last_used_at ?? "")).toBeGreaterThan(Date.now() - 120_000);
  });
});

describe("GET /media refuses", () => {
  it.each([
    ["limit=201", "query.limit"],
    ["limit=0", "query.limit"],
    ["offset=-1", "query.offset"],
    ["min_width=-1", "query.min_width"],
    ["max_height=abc", "query.max_height"],
    ["sort=biggest", "query.sort"],
    ["filter=recent", "query.filter"],
    ["lifecycle=archive", "query.lifecycle"],
    ["aspect=round", "query.aspect"],
    ["type=document", "query.type"],
    ["untagged=yes", "query.untagged"],
    ["date_from=2026-02-30", "query.date_from"],
    ["date_to=01/03/2026", "query.date_to"],
    ["date_from=2026-03-02&date_to=2026-03-01", "query.date_to"],
    ["min_width=500&max_width=100", "query.max_width"],
    ["min_height=500&max_height=100", "query.max_height"],
    [`tag_ids=${Array.from({ length: 51 }, (_, i) => `t${i}`).join(",")}`, "query.tag_ids"],
    [`search=${"x".repeat(201)}`, "query.search"],
  ])("%s → 422 naming %s", async (query, location) => {
    // Raw: the table sends queries as written, most of them outside what the types allow (words for numbers,
    // values outside the enums).
    const res = await api<Problem>("GET", `/media?workspace_id=${ws}&${query}`, { token: owner.token });
    expect(res.status, res.text).toBe(422);
    expect(slugOf(res.body)).toBe("validation-error");
    expect(locationsOf(res.body)).toContain(location);
  });

  it("404 for non-members and unknown workspaces, 401 without a token", async () => {
    const listIn = (workspace_id: string, token?: string) => client(token).GET("/media", { params: { query: { workspace_id } } });
    const stranger = await listIn(ws, outsider.token);
    expect(slugOf(expectError(stranger, 404))).toBe("not-found");
    expect((await listIn("wsp_nosuch", owner.token)).response.status).toBe(404);
    expect((await listIn(ws)).response.status).toBe(401);
    // Raw: without the required workspace_id, which the types forbid.
    expect((await api<Problem>("GET", "/media", { token: owner.token })).body.errors?.[0].location).toBe("query.workspace_id");
  });
});

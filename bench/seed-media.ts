import { sql } from "drizzle-orm";
import { media, mediaUsages, workspaces } from "../db/schema";
import { filtersOf, ListMediaQuery } from "../functions/media/list";
import type { Database, DbHandle } from "../lib/db/client";
import { personalOrganizationId } from "../lib/billing/organizations";
import { newId } from "../lib/ids";
import { mediaListOrder, mediaListWhere } from "../lib/media/list-query";
import { objectKey } from "../lib/media/storage";
import { searchDocument } from "../lib/media/tags";
import { progress } from "./stats";

/** A media library for the list benchmarks (bench/media-list.ts, bench/edge-speed.ts), and the filters they measure. */
const BATCH = 2_000;

export const MEDIA_CASES: { name: string; query: string }[] = [
  { name: "default (library, newest)", query: "" },
  { name: "search=sunset", query: "search=sunset" },
  { name: "search=img_4 (file name)", query: "search=img_4" },
  { name: "tag_ids=beach,travel", query: "tag_ids=beach,travel" },
  { name: "type=image&aspect=portrait", query: "type=image&aspect=portrait" },
  { name: "date range (one month)", query: "date_from=2026-03-01&date_to=2026-03-31" },
  { name: "sort=size", query: "sort=size" },
  { name: "filter=used&sort=recently_used", query: "filter=used&sort=recently_used" },
  { name: "untagged, offset 1000", query: "untagged=true&offset=1000" },
];

// A small deterministic generator, so every run seeds the same library.
let state = 42;
/** mulberry32: 32-bit state, uniform in [0, 1). */
function rand(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}
const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)];

const WORDS = [
  "sunset",
  "beach",
  "travel",
  "city",
  "night",
  "portrait",
  "team",
  "product",
  "launch",
  "coffee",
  "mountain",
  "forest",
  "event",
  "logo",
  "banner",
  "summer",
  "winter",
  "office",
  "food",
  "street",
];
/** 200 tags, drawn with a skew: a few are common, most are rare. */
const TAGS = [...WORDS, ...Array.from({ length: 180 }, (_, i) => `tag-${i}`)];
const skewedTag = () => TAGS[Math.floor(TAGS.length * rand() ** 3)];
const IMAGE_SIZES: [number, number][] = [
  [1080, 1080],
  [1920, 1080],
  [1080, 1920],
  [1080, 1350],
  [4032, 3024],
  [3024, 4032],
  [800, 600],
  [1200, 628],
];
const VIDEO_SIZES: [number, number][] = [
  [1920, 1080],
  [1080, 1920],
  [1280, 720],
  [720, 1280],
  [1080, 1080],
];
const START = Date.parse("2025-01-01T00:00:00Z");
const SPAN = Date.parse("2026-11-01T00:00:00Z") - START;

function item(workspaceId: string, n: number) {
  const id = newId("med");
  const roll = rand();
  const mediaType = roll < 0.7 ? "image" : roll < 0.9 ? "video" : "audio";
  const [width, height] = mediaType === "image" ? pick(IMAGE_SIZES) : mediaType === "video" ? pick(VIDEO_SIZES) : [null, null];
  const ext = mediaType === "image" ? pick(["jpg", "png", "webp"]) : mediaType === "video" ? pick(["mp4", "mov"]) : "mp3";
  const originalFilename = rand() < 0.5 ? `IMG_${n}.${ext}` : `${pick(WORDS)}-${pick(WORDS)}-${n}.${ext}`;
  const altText = rand() < 0.4 ? `${pick(WORDS)} and ${pick(WORDS)} at the ${pick(WORDS)}` : null;
  const tags = rand() < 0.25 ? [] : [...new Set(Array.from({ length: 1 + Math.floor(rand() * 4) }, skewedTag))];
  const life = rand();
  const createdAt = new Date(START + Math.floor(rand() * SPAN));
  return {
    id,
    workspaceId,
    objectKey: objectKey(workspaceId, id),
    mimeType:
      mediaType === "image"
        ? `image/${ext === "jpg" ? "jpeg" : ext}`
        : mediaType === "video"
          ? ext === "mov"
            ? "video/quicktime"
            : "video/mp4"
          : "audio/mpeg",
    mediaType: mediaType as "image" | "video" | "audio",
    size: Math.floor(10_000 * 5_000 ** rand()),
    originalFilename,
    altText,
    tags,
    searchText: searchDocument({ originalFilename, altText, tags }),
    isFavorite: rand() < 0.05,
    source: rand() < 0.9 ? "upload" : "design_export",
    width,
    height,
    durationMs: mediaType === "image" ? null : Math.floor(1000 + rand() * 120_000),
    retentionClass: (life < 0.02 ? "temporary" : "library") as "temporary" | "library",
    expiresAt: life < 0.02 ? new Date(Date.now() + 7 * 86_400_000) : null,
    trashedAt: life > 0.97 ? createdAt : null,
    trashReason: life > 0.97 ? "manual" : null,
    purgeAfter: life > 0.97 ? new Date(Date.now() + 30 * 86_400_000) : null,
    createdAt,
    updatedAt: createdAt,
  };
}

async function seed(db: Database, workspaceId: string, count: number, label: string) {
  let used = 0;
  for (let done = 0; done < count; ) {
    const rows = Array.from({ length: Math.min(BATCH, count - done) }, (_, i) => item(workspaceId, done + i));
    await db.insert(media).values(rows);
    // One in ten items is used by a publication; usage_count / last_used_at as lib/media/usage.ts keeps them.
    const usages = rows
      .filter(() => rand() < 0.1)
      .map((r) => ({
        mediaId: r.id,
        workspaceId,
        ownerType: "publication" as const,
        ownerId: `pub_${Math.floor(rand() * 5000)}`,
        usedAt: new Date(r.createdAt.getTime() + Math.floor(rand() * 30 * 86_400_000)),
      }));
    if (usages.length) {
      await db.insert(mediaUsages).values(usages).onConflictDoNothing();
      used += usages.length;
    }
    done += rows.length;
    progress(label, done, count);
  }
  await db.execute(sql`
    update ${media} m set usage_count = u.n, last_used_at = u.last
    from (select media_id, count(*)::int as n, max(used_at) as last from ${mediaUsages} group by media_id) u
    where u.media_id = m.id and m.workspace_id = ${workspaceId}`);
  return used;
}

/** The page and total queries the handler runs for a query string, as SQL text and parameters. */
export function mediaStatements(db: Database, workspaceId: string, query: string) {
  const q = ListMediaQuery.parse(Object.fromEntries(new URLSearchParams(`workspace_id=${workspaceId}${query ? `&${query}` : ""}`)));
  const filters = filtersOf(q);
  const where = mediaListWhere(filters);
  const page = db
    .select()
    .from(media)
    .where(where)
    .orderBy(...mediaListOrder(filters.sort))
    .limit(q.limit)
    .offset(q.offset ?? 0)
    .toSQL();
  const count = db.select({ total: sql<number>`count(*)::int` }).from(media).where(where).toSQL();
  return { page, count };
}

/**
 * `items` media in `workspaceId` and `otherItems` in each of `otherWorkspaces` new workspaces (so the indexes
 * hold other tenants too), loaded as one would in bulk: the secondary indexes dropped, the rows inserted, and
 * the very same index definitions (pg_get_indexdef) built again, which is several times faster. Answers the
 * number of uses recorded.
 */
export async function seedMediaLibrary(
  handle: DbHandle,
  userId: string,
  workspaceId: string,
  opts: { items: number; otherWorkspaces: number; otherItems: number },
) {
  const db = handle.db;
  const defs = await handle.pool.query<{ name: string; def: string }>(
    `select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as def from pg_index
     where indrelid = 'media'::regclass and not indisprimary and not indisunique`,
  );
  for (const { name } of defs.rows) await handle.pool.query(`drop index ${name}`);
  const used = await seed(db, workspaceId, opts.items, "seeding media ");
  for (let w = 0; w < opts.otherWorkspaces; w++) {
    const other = newId("wsp");
    await db.insert(workspaces).values({ id: other, name: `Other ${w}`, organizationId: await personalOrganizationId(db, userId), createdBy: userId });
    await seed(db, other, opts.otherItems, `other tenant ${w + 1}`);
  }
  await handle.pool.query("set maintenance_work_mem = '256MB'");
  for (const [i, { def }] of defs.rows.entries()) {
    progress("building indexes", i, defs.rows.length);
    await handle.pool.query(def);
  }
  progress("building indexes", defs.rows.length, defs.rows.length);
  await db.execute(sql`vacuum analyze media`);
  await db.execute(sql`vacuum analyze media_usages`);
  return used;
}

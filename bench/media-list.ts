/**
 * GET /media over 100,000 items in one workspace (issue 4): p50 / p99 of a few filter combinations
 * through the gateway in-process (auth, membership check, the page and the exact total, JSON), beside
 * the very same SQL (the page and count queries the handler builds) run directly through the same Neon
 * driver and relay: once on a warm pool, and once on a new pool per run as each request has.
 *
 * Run: npx tsx bench/media-list.ts [requests per case, default 100]
 * Starts its own Postgres + relay + SQS (startEphemeralStack) and stops it at the end.
 */
import { personalOrganizationId } from "../lib/billing/organizations";
import "../lib/db/node";
import { sql } from "drizzle-orm";
import { media, mediaUsages, workspaceMembers, workspaces } from "../db/schema";
import gateway from "../functions/gateway";
import { filtersOf, ListMediaQuery } from "../functions/media/list";
import { issueToken } from "../lib/auth/tokens";
import { createUser } from "../lib/auth/users";
import { openDb, type Database } from "../lib/db/client";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { mediaListOrder, mediaListWhere } from "../lib/media/list-query";
import { objectKey } from "../lib/media/storage";
import { searchDocument } from "../lib/media/tags";
import { startEphemeralStack } from "../local/services/ephemeral-stack";
import { fmt, measure, printTable, progress } from "./stats";

const N = Number(process.argv[2] ?? 100);
const ITEMS = 100_000;
/** Other tenants' items, so the indexes hold more than the one workspace measured. */
const OTHER_WORKSPACES = 4;
const OTHER_ITEMS = 5_000;
const BATCH = 2_000;

const CASES: { name: string; query: string }[] = [
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

const WORDS = ["sunset", "beach", "travel", "city", "night", "portrait", "team", "product", "launch", "coffee", "mountain", "forest", "event", "logo", "banner", "summer", "winter", "office", "food", "street"];
/** 200 tags, drawn with a skew: a few are common, most are rare. */
const TAGS = [...WORDS, ...Array.from({ length: 180 }, (_, i) => `tag-${i}`)];
const skewedTag = () => TAGS[Math.floor(TAGS.length * rand() ** 3)];
const IMAGE_SIZES: [number, number][] = [[1080, 1080], [1920, 1080], [1080, 1920], [1080, 1350], [4032, 3024], [3024, 4032], [800, 600], [1200, 628]];
const VIDEO_SIZES: [number, number][] = [[1920, 1080], [1080, 1920], [1280, 720], [720, 1280], [1080, 1080]];
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
    mimeType: mediaType === "image" ? `image/${ext === "jpg" ? "jpeg" : ext}` : mediaType === "video" ? (ext === "mov" ? "video/quicktime" : "video/mp4") : "audio/mpeg",
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
    const usages = rows.filter(() => rand() < 0.1).map((r) => ({ mediaId: r.id, workspaceId, ownerType: "publication" as const, ownerId: `pub_${Math.floor(rand() * 5000)}`, usedAt: new Date(r.createdAt.getTime() + Math.floor(rand() * 30 * 86_400_000)) }));
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
function statements(db: Database, workspaceId: string, query: string) {
  const q = ListMediaQuery.parse(Object.fromEntries(new URLSearchParams(`workspace_id=${workspaceId}${query ? `&${query}` : ""}`)));
  const filters = filtersOf(q);
  const where = mediaListWhere(filters);
  const page = db.select().from(media).where(where).orderBy(...mediaListOrder(filters.sort)).limit(q.limit).offset(q.offset ?? 0).toSQL();
  const count = db.select({ total: sql<number>`count(*)::int` }).from(media).where(where).toSQL();
  return { page, count };
}

/** Index names in a plan (EXPLAIN JSON), to show which index serves each case. */
function indexesIn(plan: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(plan)) plan.forEach((p) => indexesIn(p, out));
  else if (plan && typeof plan === "object") {
    for (const [key, value] of Object.entries(plan)) {
      if (key === "Index Name") out.add(String(value));
      else indexesIn(value, out);
    }
  }
  return out;
}

async function main() {
  const t0 = Date.now();
  console.error("Starting Postgres, relay and SQS …");
  const stack = await startEphemeralStack("herald-bench-media");
  const env = { ...stack.env, RATE_LIMIT_PER_MINUTE: "100000000" } as unknown as Env; // measure the API, not the per-token rate limit
  const handle = openDb(env);
  const db = handle.db;
  try {
    const user = await createUser(db, { email: "bench@example.test", displayName: "Bench", isAdmin: false });
    const { token } = await issueToken(db, user.id, "bench");
    const ws = newId("wsp");
    await db.insert(workspaces).values({ id: ws, name: "Bench", organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
    await db.insert(workspaceMembers).values({ workspaceId: ws, userId: user.id, role: "viewer" });

    const seeded = Date.now();
    // Bulk load as one would: the migration's secondary indexes are dropped, the rows inserted, and the
    // very same index definitions (pg_get_indexdef) built again afterwards, which is several times faster.
    const defs = await handle.pool.query<{ name: string; def: string }>(
      `select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as def from pg_index
       where indrelid = 'media'::regclass and not indisprimary and not indisunique`,
    );
    for (const { name } of defs.rows) await handle.pool.query(`drop index ${name}`);
    const used = await seed(db, ws, ITEMS, "seeding media ");
    for (let w = 0; w < OTHER_WORKSPACES; w++) {
      const other = newId("wsp");
      await db.insert(workspaces).values({ id: other, name: `Other ${w}`, organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
      await seed(db, other, OTHER_ITEMS, `other tenant ${w + 1}`);
    }
    await handle.pool.query("set maintenance_work_mem = '256MB'");
    for (const [i, { def }] of defs.rows.entries()) {
      progress("building indexes", i, defs.rows.length);
      await handle.pool.query(def);
    }
    progress("building indexes", defs.rows.length, defs.rows.length);
    await db.execute(sql`vacuum analyze media`);
    await db.execute(sql`vacuum analyze media_usages`);
    console.error(`Seeded ${ITEMS.toLocaleString("en")} items (${used.toLocaleString("en")} uses) + ${(OTHER_WORKSPACES * OTHER_ITEMS).toLocaleString("en")} in other workspaces in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);

    const rows: Record<string, string | number>[] = [];
    for (const c of CASES) {
      const path = `/media?workspace_id=${ws}${c.query ? `&${c.query}` : ""}`;
      const viaApi = async () => {
        const res = await gateway.request(path, { headers: { authorization: `Bearer ${token}` } }, env);
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as { total: number; media: unknown[] };
      };
      const { page, count } = statements(db, ws, c.query);
      const runSql = (pool: typeof handle.pool) => Promise.all([pool.query(page.sql, page.params), pool.query(count.sql, count.params)]);
      const newPoolRun = async () => {
        const h = openDb(env);
        try {
          return await runSql(h.pool);
        } finally {
          await h.close();
        }
      };

      const apiResult = await viaApi();
      const [pageRows, countRows] = await runSql(handle.pool);
      const sqlTotal = Number(Object.values(countRows.rows[0])[0]);
      if (apiResult.total !== sqlTotal || apiResult.media.length !== pageRows.rows.length) {
        throw new Error(`${c.name}: API and SQL disagree (${apiResult.total} vs ${sqlTotal})`);
      }
      const plans = await Promise.all([page, count].map((s) => handle.pool.query(`explain (format json) ${s.sql}`, s.params)));
      const indexes = [...indexesIn(plans.map((p) => p.rows[0]["QUERY PLAN"]))].map((n) => n.replace(/^media_(list_)?/, "").replace(/_idx$/, "")).join(", ");

      const apiT = await measure(viaApi, { n: N, warmup: 5 });
      const sqlT = await measure(() => runSql(handle.pool), { n: N, warmup: 5 });
      const coldT = await measure(newPoolRun, { n: Math.max(20, Math.floor(N / 2)), warmup: 3 });
      rows.push({
        case: c.name,
        total: apiResult.total,
        "api p50": fmt(apiT.p50),
        "api p99": fmt(apiT.p99),
        "sql p50": fmt(sqlT.p50),
        "sql p99": fmt(sqlT.p99),
        "sql+connect p50": fmt(coldT.p50),
        "api/sql p50": `${(apiT.p50 / sqlT.p50).toFixed(2)}×`,
        "api/sql p99": `${(apiT.p99 / sqlT.p99).toFixed(2)}×`,
        "api/(sql+connect) p50": `${(apiT.p50 / coldT.p50).toFixed(2)}×`,
        indexes,
      });
      console.error(`  ${c.name}: done`);
    }
    console.log(`\nGET /media over ${ITEMS.toLocaleString("en")} items in one workspace, ${N} requests per case, one at a time.`);
    console.log("api = gateway in-process (token lookup, membership check, page + exact total in parallel, JSON), new pool per request as on Workers;");
    console.log("sql = the same two statements on a warm pool; sql+connect = the same on a new pool each run. indexes = from EXPLAIN of both statements.\n");
    printTable(rows);
    console.log(`\nWhole run ${((Date.now() - t0) / 1000).toFixed(0)} s.`);
  } finally {
    await handle.close();
    await stack.stop();
  }
}

await main();

/**
 * Video mutation latency against the length of a project's history (issue 4): p50 / p99 of applied
 * (based on head) and rebased (based a few revisions behind head, disjoint) batches on projects with 1,
 * 1,000 and 10,000 revisions, and the ratio of the 10,000 case to the 1 case. Goal: within 1.5×.
 *
 * Run: npx tsx bench/video-mutations.ts [mutations per case, default 300]
 * Starts its own Postgres + relay + SQS, calls the gateway in-process (as the tests do) and stops the stack.
 */
import { personalOrganizationId } from "../lib/billing/organizations";
import "../lib/db/node";
import { sql } from "drizzle-orm";
import { videoMutations, videoProjectRevisions, videoProjects, videoRevisionTouches, workspaceMembers, workspaces } from "../db/schema";
import { issueToken } from "../lib/auth/tokens";
import { createUser } from "../lib/auth/users";
import { openDb, type Database } from "../lib/db/client";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import type { VideoDocument } from "../lib/video/document";
import { keepsSnapshot } from "../lib/video/rebase";
import { startEphemeralStack } from "../local/services/ephemeral-stack";
import { fmt, percentile, printTable, progress } from "./stats";

const N = Number(process.argv[2] ?? 300);
const WARMUP = 10;
const CLIPS = 20;
/** How far behind head a rebased batch's base is. */
const GAP = 3;

interface Case {
  history: number;
  kind: string;
  times: number[];
  run: () => Promise<void>;
}

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function summarize(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

/** 20 clips on one track; seeded history rewrites `meta.h` of one clip per revision, so the document stays the same size. */
function baseDocument(): VideoDocument {
  const clips: VideoDocument["clips"] = {};
  for (let i = 0; i < CLIPS; i++) clips[`c${i}`] = { track_id: "track-video", start_ms: i * 1000, duration_ms: 1000, meta: {} };
  return { schema_version: 1, settings: { width: 1080, height: 1920, fps: 30 }, tracks: { "track-video": { kind: "video", name: "Main", order: 0 } }, clips };
}

/** The document after seeded revisions 2..revision: clip i holds the last revision r ≡ i (mod 20). */
function documentAt(revision: number): VideoDocument {
  const doc = baseDocument();
  for (let r = Math.max(2, revision - CLIPS + 1); r <= revision; r++) (doc.clips[`c${r % CLIPS}`].meta as Record<string, number>).h = r;
  return doc;
}

/** Projects with `history` revisions, written straight into the tables the API uses. */
async function seedProjects(db: Database, workspaceId: string, userId: string, count: number, history: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId("vpr"));
  const head = documentAt(history);
  await db
    .insert(videoProjects)
    .values(ids.map((id) => ({ id, workspaceId, name: `bench ${history}`, document: head, headRevision: history, createdBy: userId, updatedBy: userId })));
  const revisions: (typeof videoProjectRevisions.$inferInsert)[] = [];
  const touches: (typeof videoRevisionTouches.$inferInsert)[] = [];
  const mutations: (typeof videoMutations.$inferInsert)[] = [];
  const flush = async (force = false) => {
    if (revisions.length >= 1000 || (force && revisions.length)) await db.insert(videoProjectRevisions).values(revisions.splice(0));
    if (touches.length >= 2000 || (force && touches.length)) await db.insert(videoRevisionTouches).values(touches.splice(0));
    if (mutations.length >= 2000 || (force && mutations.length)) await db.insert(videoMutations).values(mutations.splice(0));
  };
  for (const projectId of ids) {
    revisions.push({ projectId, revision: 1, kind: "create", operations: [], inverse: [], snapshot: baseDocument(), createdBy: userId });
    for (let r = 2; r <= history; r++) {
      const target = `c${r % CLIPS}`;
      const previous = r - CLIPS >= 2 ? r - CLIPS : null;
      revisions.push({
        projectId,
        revision: r,
        kind: "applied",
        mutationId: `seed-${r}`,
        baseRevision: r - 1,
        operations: [{ kind: "set", target, path: "/meta/h", value: r }],
        inverse: [previous === null ? { kind: "remove", target, path: "/meta/h" } : { kind: "set", target, path: "/meta/h", value: previous }],
        snapshot: keepsSnapshot(r) ? documentAt(r) : null,
        createdBy: userId,
      });
      touches.push({ projectId, target, revision: r, touches: ["w/meta/h"] });
      mutations.push({ projectId, mutationId: `seed-${r}`, outcome: "applied", revision: r, createdBy: userId });
      await flush();
    }
  }
  await flush(true);
  return ids;
}

async function main() {
  const started = performance.now();
  const stack = await startEphemeralStack("herald-bench-video");
  const env = { ...stack.env, RATE_LIMIT_PER_MINUTE: "100000000" } as unknown as Env; // measure the API, not the per-token rate limit
  const { default: gateway } = await import("../functions/all-groups");
  const handle = openDb(env);
  const db = handle.db;
  try {
    const user = await createUser(db, { email: `bench-${Date.now()}@example.test`, displayName: "Bench", isAdmin: false });
    const { token } = await issueToken(db, user.id, "bench");
    const workspaceId = newId("wsp");
    await db.insert(workspaces).values({ id: workspaceId, name: "Bench", organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
    await db.insert(workspaceMembers).values({ workspaceId, userId: user.id, role: "owner" });

    const post = async (projectId: string, base: number, operations: unknown[], expected: string) => {
      const res = await gateway.request(
        `/video-projects/${projectId}/mutations`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ workspace_id: workspaceId, base_revision: base, mutation_id: newId("mut"), operations }),
        },
        env,
      );
      const body = (await res.json()) as { outcome?: string; revision?: number };
      if (res.status !== 200 || body.outcome !== expected) throw new Error(`expected ${expected}, got ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      return body.revision!;
    };

    const total = N + WARMUP;
    const HISTORIES = [1, 1_000, 10_000];
    const cases: Case[] = [];
    let longest = { id: "", heads: new Map<string, number>(), target: "" };
    for (const history of HISTORIES) {
      const t0 = performance.now();
      // History 1 has nothing to be behind: its rebased case starts GAP revisions in (the least possible).
      const rebasedHistory = Math.max(history, 1 + GAP);
      // Short histories get one fresh project per mutation, so every measured batch sees exactly that history;
      // long ones get one project each, whose history grows by N + WARMUP while measuring.
      const appliedIds = history === 1 ? await seedProjects(db, workspaceId, user.id, total, 1) : await seedProjects(db, workspaceId, user.id, 1, history);
      const rebasedIds =
        history === 1 ? await seedProjects(db, workspaceId, user.id, total, rebasedHistory) : await seedProjects(db, workspaceId, user.id, 1, history);
      process.stderr.write(`seeded history ${history} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

      const heads = new Map<string, number>();
      if (history === HISTORIES.at(-1)) longest = { id: rebasedIds[0], heads, target: `c${rebasedHistory % CLIPS}` };
      let a = 0;
      cases.push({
        history,
        kind: "applied",
        times: [],
        run: async () => {
          const j = a++;
          const id = appliedIds[appliedIds.length === 1 ? 0 : j];
          heads.set(id, await post(id, heads.get(id) ?? history, [{ kind: "set", target: `c${j % CLIPS}`, path: "/meta/a", value: j }], "applied"));
        },
      });
      let r = 0;
      cases.push({
        history: rebasedHistory,
        kind: "rebased",
        times: [],
        run: async () => {
          const j = r++;
          const id = rebasedIds[rebasedIds.length === 1 ? 0 : j];
          const head = heads.get(id) ?? rebasedHistory;
          // The batch's clip is the one the latest revisions changed (at other paths), so the overlap check has rows to
          // examine; the path cycles through 8 keys, so it is disjoint from the GAP revisions before it and the document stays small.
          heads.set(id, await post(id, head - GAP, [{ kind: "set", target: `c${rebasedHistory % CLIPS}`, path: `/meta/r${j % 8}`, value: j }], "rebased"));
        },
      });
    }
    // For scale: a read of one project (token lookup, membership, one row) through the same path.
    const readId = (await db.select({ id: videoProjects.id }).from(videoProjects).limit(1))[0].id;
    cases.push({
      history: 0,
      kind: "GET (for scale)",
      times: [],
      run: async () => {
        const res = await gateway.request(`/video-projects/${readId}`, { headers: { authorization: `Bearer ${token}` } }, env);
        if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
        await res.arrayBuffer();
      },
    });

    // Rounds: one mutation of every case per round, in a shuffled order, so that the load of this shared
    // machine (other processes come and go) falls on every case alike instead of on whichever ran last.
    for (let round = 0; round < total; round++) {
      for (const c of shuffled(cases)) {
        const t0 = performance.now();
        await c.run();
        if (round >= WARMUP) c.times.push(performance.now() - t0);
      }
      if (round % 10 === 0 || round === total - 1) progress("rounds", round + 1, total);
    }

    const stats = new Map(cases.map((c) => [`${c.kind}@${c.history}`, summarize(c.times)]));
    const rows = cases.map((c) => {
      const t = stats.get(`${c.kind}@${c.history}`)!;
      return { history: c.history || "-", outcome: c.kind, n: t.n, p50: fmt(t.p50), p99: fmt(t.p99), mean: fmt(t.mean) };
    });
    // The overlap lookup a rebased batch makes on the longest history, as laterTouches() issues it.
    const base = longest.heads.get(longest.id)! - GAP;
    const plan = await db.execute(sql`
      explain (analyze, costs off, timing off, summary off)
      select * from video_revision_touches
      where project_id = ${longest.id} and target in (${longest.target}) and revision > ${base}`);
    console.log(
      `\nVideo mutation latency by history length (${N} per case after ${WARMUP} warm-up, one at a time, cases interleaved; in-process gateway, real Postgres)`,
    );
    printTable(rows);
    for (const kind of ["applied", "rebased"] as const) {
      const small = stats.get(`${kind}@${kind === "applied" ? 1 : 1 + GAP}`)!;
      const large = stats.get(`${kind}@10000`)!;
      const ratio = large.p50 / small.p50;
      console.log(
        `${kind.padEnd(8)} 10,000 vs 1 revisions: p50 ${ratio.toFixed(2)}× (${fmt(large.p50)} / ${fmt(small.p50)}), p99 ${(large.p99 / small.p99).toFixed(2)}× — goal ≤ 1.5×: ${ratio <= 1.5 ? "met" : "NOT met"}`,
      );
    }
    console.log(`\nOverlap lookup of a rebased batch at ${base + GAP} revisions, base ${base} (EXPLAIN ANALYZE):`);
    for (const row of plan.rows as { "QUERY PLAN": string }[]) console.log(`  ${row["QUERY PLAN"]}`);
    console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await handle.close();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

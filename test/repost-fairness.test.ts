import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { repostAttempts, repostEvaluatorCursors, repostPolicies } from "../db/schema";
import { newId } from "../lib/ids";
import { evaluateRepostPolicies, RENDITIONS_PER_WORKSPACE } from "../lib/repost/run-evaluator";
import { seedItem } from "./helpers/analytics";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { discardJobs, policyRow, publishedRendition } from "./helpers/repost";

/**
 * One busy workspace cannot starve the others (issue 25): each run examines a bounded slice of every
 * workspace's posts, taking workspaces least recently evaluated first. Workspace A has 10,000 posts due
 * (rows written directly); B's one post is queued by the same run, and A works through its backlog run by run.
 */

const BUSY = 10_000;

/** A workspace whose accounts point at a closed port: these tests queue reposts and never run them. */
async function workspaceWithPolicy() {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const account = (name: string) =>
    newAccount(ws, owner.id, "mastodon", { instanceUrl: "http://127.0.0.1:9", username: name, credentials: { access_token: name } });
  const [source, target] = await Promise.all([account("source"), account("target")]);
  const policyId = await policyRow(ws, [source], [target]);
  return { ws, source, target, policyId };
}

/** `count` published posts of `source`, each with 5 likes collected from the platform, in four statements. */
async function busyPosts(ws: string, source: string, count: number) {
  const tag = newId("f").slice(2, 14);
  await withDb(async (db) => {
    await db.execute(sql`insert into publications (id, workspace_id, status, source_text)
      select 'pub_' || ${tag} || g, ${ws}, 'published', 'x' from generate_series(1, ${count}) g`);
    await db.execute(sql`insert into renditions (id, publication_id, workspace_id, social_account_id, platform, position, body, delivery_key, status, external_id, published_at)
      select 'rnd_' || ${tag} || g, 'pub_' || ${tag} || g, ${ws}, ${source}, 'mastodon', 0, 'x', 'dlv_' || ${tag} || g, 'published', ${tag} || '-' || g,
        now() - interval '2 hours' + g * interval '1 millisecond'
      from generate_series(1, ${count}) g`);
    await db.execute(sql`insert into analytics_content_items (id, workspace_id, account_id, source, external_id, rendition_id, publication_id, published_at)
      select 'aci_' || ${tag} || g, ${ws}, ${source}, 'native', ${tag} || '-' || g, 'rnd_' || ${tag} || g, 'pub_' || ${tag} || g, now() - interval '2 hours'
      from generate_series(1, ${count}) g`);
    await db.execute(sql`insert into analytics_measurements (id, workspace_id, account_id, content_item_id, metric, value, collected_at, source)
      select 'amm_' || ${tag} || g, ${ws}, ${source}, 'aci_' || ${tag} || g, 'likes', 5, now(), 'mastodon_api'
      from generate_series(1, ${count}) g`);
  });
}

const queuedIn = (ws: string) =>
  withDb((db) => db.select({ renditionId: repostAttempts.renditionId }).from(repostAttempts).where(eq(repostAttempts.workspaceId, ws)));

describe("repost evaluation is fair between workspaces", () => {
  it("a workspace with 10,000 posts due does not delay another's beyond one run", async () => {
    const a = await workspaceWithPolicy();
    const b = await workspaceWithPolicy();
    await busyPosts(a.ws, a.source, BUSY);
    const bPost = await publishedRendition(b.ws, b.source, "mastodon", "b-1", null);
    await seedItem(b.ws, b.source, { externalId: "b-1", publishedAt: bPost.publishedAt, renditionId: bPost.renditionId, metrics: { likes: 5 } });
    const both = { workspaceIds: [a.ws, b.ws] };
    const jobs: string[] = [];
    try {
      // One run: B's post is queued; A's work is bounded.
      const started = Date.now();
      jobs.push(...(await withDb((db) => evaluateRepostPolicies(db, both))));
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((await queuedIn(b.ws)).map((x) => x.renditionId)).toEqual([bPost.renditionId]);
      const first = new Set((await queuedIn(a.ws)).map((x) => x.renditionId));
      expect(first.size).toBe(RENDITIONS_PER_WORKSPACE);
      expect(jobs).toHaveLength(RENDITIONS_PER_WORKSPACE + 1);

      // The next run goes on through A's backlog where the last stopped (oldest first), never repeating.
      jobs.push(...(await withDb((db) => evaluateRepostPolicies(db, both))));
      const second = (await queuedIn(a.ws)).map((x) => x.renditionId);
      expect(second).toHaveLength(2 * RENDITIONS_PER_WORKSPACE);
      expect(new Set(second).size).toBe(2 * RENDITIONS_PER_WORKSPACE);

      // Runs that can reach only one workspace (their time is up after the first) take them in turn:
      // B's new post waits at most one run.
      const bNext = await publishedRendition(b.ws, b.source, "mastodon", "b-2", null);
      await seedItem(b.ws, b.source, { externalId: "b-2", publishedAt: bNext.publishedAt, renditionId: bNext.renditionId, metrics: { likes: 5 } });
      const touched: string[][] = [];
      for (let run = 0; run < 2; run++) {
        const before = await withDb((db) => db.select().from(repostEvaluatorCursors).where(inArray(repostEvaluatorCursors.workspaceId, both.workspaceIds)));
        jobs.push(...(await withDb((db) => evaluateRepostPolicies(db, { ...both, budgetMs: -1 }))));
        const after = await withDb((db) => db.select().from(repostEvaluatorCursors).where(inArray(repostEvaluatorCursors.workspaceId, both.workspaceIds)));
        touched.push(
          after.filter((c) => before.find((x) => x.workspaceId === c.workspaceId)?.evaluatedAt.getTime() !== c.evaluatedAt.getTime()).map((c) => c.workspaceId),
        );
      }
      expect(touched.map((t) => t.length)).toEqual([1, 1]);
      expect(new Set(touched.flat())).toEqual(new Set([a.ws, b.ws]));
      expect((await queuedIn(b.ws)).map((x) => x.renditionId).sort()).toEqual([bPost.renditionId, bNext.renditionId].sort());
    } finally {
      await discardJobs(jobs);
      // Nothing of this backlog for any later evaluation (the attempts go with the policies).
      await withDb((db) => db.delete(repostPolicies).where(inArray(repostPolicies.id, [a.policyId, b.policyId])));
    }
  }, 120_000);
});

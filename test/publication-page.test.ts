import { and, desc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { publications, renditions } from "../db/schema";
import { publicationPage } from "../lib/publishing/page";
import { publicationResponses } from "../lib/publishing/respond";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { insertMediaRows } from "./helpers/media";
import { newAccount } from "./helpers/publishing";
import type { Schemas } from "./helpers/typed";

const BASE = "http://herald.test";
const LONG = Array.from({ length: 30 }, (_, i) => `Sentence ${i + 1} of a long thread, with “quotes” and émoji 🎉.`).join(" ");

/**
 * GET /publications builds its page in one statement, children as JSON (lib/publishing/page.ts). Its answer
 * must be exactly what the per-table load (lib/publishing/respond.ts, used by the single-publication routes)
 * gives for the same rows: every column type through JSON and back (dates, arrays, jsonb, integers, booleans,
 * nulls), the order of segments and renditions, attached media.
 */
describe("a page of publications in one statement", () => {
  it("answers exactly what the per-table load answers, in the same order", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const [bluesky, mastodon, hook] = await Promise.all([
      newAccount(ws, owner.id, "bluesky"),
      newAccount(ws, owner.id, "mastodon"),
      newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" }),
    ]);
    const mediaIds = await insertMediaRows(ws, [
      { altText: "a “sunset”", width: 1080, height: 1350 },
      { mediaType: "video", mimeType: "video/mp4", width: 1920, height: 1080, durationMs: 12_345 },
      {},
    ]);
    const bodies: Omit<Schemas["CreatePublicationRequest"], "workspace_id">[] = [
      {
        source_text: LONG,
        title: "Thread",
        destinations: [{ social_account_id: bluesky }, { social_account_id: mastodon }, { social_account_id: hook }],
        media_ids: [mediaIds[2], mediaIds[0]],
      },
      { source_text: "plain", destinations: [], metadata: { n: "123", nested: { list: [1, "two", null], flag: true }, text: "ünïcode ✓", empty: {} } },
      { source_text: "one destination", destinations: [{ social_account_id: hook }], media_ids: [mediaIds[1]], metadata: { s: '"quoted"' } },
      { source_text: "scheduled", destinations: [{ social_account_id: bluesky }], scheduled_at: "2031-05-06T07:08:09.123Z" },
    ];
    for (const body of bodies) {
      const res = await client(owner.token).POST("/publications", { body: { workspace_id: ws, ...body } });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    }
    // Delivery columns with values the create path leaves empty: a failed rendition with its error fields.
    await withDb((db) =>
      db
        .update(renditions)
        .set({
          status: "failed",
          attemptCount: 3,
          errorCode: "rate_limited",
          errorHttpStatus: 429,
          errorRetryable: true,
          errorRetryAt: new Date("2030-01-02T03:04:05.678Z"),
          terminalReason: "gave up",
          externalId: "ext-1",
        })
        .where(and(eq(renditions.workspaceId, ws), eq(renditions.platform, "mastodon"))),
    );

    await withDb(async (db) => {
      const query = () => db.select().from(publications).where(eq(publications.workspaceId, ws)).orderBy(desc(publications.createdAt), desc(publications.id));
      const one = await publicationPage(db, BASE, query().limit(10));
      const perTable = await publicationResponses(db, BASE, await query().limit(10));
      expect(one.map((r) => r.response)).toEqual(perTable);
      expect(one.map((r) => r.publication)).toEqual(await query().limit(10));
      expect(one).toHaveLength(4);
      const thread = one.find((r) => r.publication.title === "Thread")!.response;
      expect(thread.renditions.length).toBe(3);
      expect((thread.media as { id: string }[]).map((m) => m.id)).toEqual([mediaIds[2], mediaIds[0]]);

      // Offset and limit: only the kept rows, still newest first.
      const page = await publicationPage(db, BASE, query().limit(2).offset(1));
      expect(page.map((r) => r.publication.id)).toEqual((await query().limit(2).offset(1)).map((r) => r.id));

      // The children are computed for the page's rows only: with an offset past every row, nothing.
      expect(await publicationPage(db, BASE, query().limit(5).offset(10))).toEqual([]);
      const { rows } = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${publications} where ${publications.workspaceId} = ${ws}`);
      expect(rows[0].n).toBe(4);
    });
  });
});

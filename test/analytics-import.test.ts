import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { analyticsContentItems, analyticsMeasurements } from "../db/schema";
import { api, expectProblem as expectRawProblem, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { expectData, expectProblem, type Schemas } from "./helpers/typed";
import { newAccount } from "./helpers/publishing";
import { newTeam } from "./helpers/team";

async function setup() {
  const team = await newTeam();
  const mastodon = await newAccount(team.ws, team.owner.id, "mastodon");
  const bluesky = await newAccount(team.ws, team.owner.id, "bluesky");
  return { ...team, mastodon, bluesky };
}

type Item = Schemas["ImportMeasurementItem"];
const item = (account_id: string, external_id: string, metrics: Item["metrics"] = { likes: 3, reposts: 2, replies: 1, views: 40 }): Item => ({
  account_id,
  external_id,
  published_at: "2026-11-20T10:00:00Z",
  title: `Post ${external_id}`,
  metrics,
});

const itemsOf = (ws: string) =>
  withDb((db) => db.select().from(analyticsContentItems).where(eq(analyticsContentItems.workspaceId, ws)).orderBy(analyticsContentItems.externalId));
const measurementCount = (ws: string) =>
  withDb(async (db) =>
    Number((await db.select({ n: sql<number>`count(*)` }).from(analyticsMeasurements).where(eq(analyticsMeasurements.workspaceId, ws)))[0].n),
  );

const importAs = (token: string | undefined, ws: string, items: Item[]) => client(token).POST("/analytics/measurements", { body: { workspace_id: ws, items } });

describe("POST /analytics/measurements", () => {
  it("imports external items with their measurements, and importing again updates instead of duplicating", async () => {
    const { owner, ws, mastodon, bluesky } = await setup();
    const res = expectData(await importAs(owner.token, ws, [item(mastodon, "m1"), item(bluesky, "b1", { views: 7 })]));
    expect(res.$schema).toMatch(/ImportMeasurementsResponse\.json$/);
    expect(res).toMatchObject({ imported: 2, created: 2, updated: 0 });
    expect(res.items.map((i) => [i.account_id, i.external_id, i.created])).toEqual([
      [mastodon, "m1", true],
      [bluesky, "b1", true],
    ]);

    let rows = await itemsOf(ws);
    expect(rows.map((r) => [r.externalId, r.source, r.engagement, r.views])).toEqual([
      ["b1", "external", 0, 7],
      ["m1", "external", 6, 40],
    ]);
    expect(await measurementCount(ws)).toBe(5);

    const again = expectData(await importAs(owner.token, ws, [item(mastodon, "m1", { likes: 10 })]));
    expect(again).toMatchObject({ imported: 1, created: 0, updated: 1 });
    expect(again.items[0].id).toBe(res.items[0].id);
    rows = await itemsOf(ws);
    expect(rows).toHaveLength(2);
    // Latest likes (10) with the earlier reposts (2) and replies (1).
    expect(rows.find((r) => r.externalId === "m1")).toMatchObject({
      engagement: 13,
      views: 40,
      latestMetrics: { likes: 10, reposts: 2, replies: 1, views: 40 },
    });
    expect(await measurementCount(ws)).toBe(6);
  });

  it("is all or nothing: one bad item → 422 naming body.items[i]…, nothing saved", async () => {
    const { owner, ws, mastodon } = await setup();
    const other = await setup();
    // A metric of the wrong type and an unknown metric, which the typed client forbids: sent raw.
    const rawCases: [unknown[], string][] = [
      [[item(mastodon, "a"), item(mastodon, "b"), { ...item(mastodon, "c"), metrics: { likes: "many" } }], "body.items[2].metrics.likes"],
      [[{ ...item(mastodon, "a"), metrics: { hearts: 3 } }], "body.items[0].metrics"],
    ];
    for (const [items, location] of rawCases) {
      const res = await api<Schemas["Problem"]>("POST", "/analytics/measurements", { token: owner.token, json: { workspace_id: ws, items } });
      expectRawProblem(res, 422, "validation-error");
      expect(
        res.body.errors?.map((e) => e.location),
        JSON.stringify(items).slice(0, 200),
      ).toContain(location);
    }
    const cases: [Item[], string][] = [
      [[item(mastodon, "a"), item(mastodon, "b", { likes: -1 })], "body.items[1].metrics.likes"],
      [[item(mastodon, "a", { likes: 2 ** 63 })], "body.items[0].metrics.likes"],
      [[item(mastodon, "a"), { ...item(mastodon, "b"), published_at: "yesterday" }], "body.items[1].published_at"],
      [[item(mastodon, "a"), item(other.mastodon, "b")], "body.items[1].account_id"],
      [[item(mastodon, "a"), item(mastodon, "a")], "body.items[1].external_id"],
      [[item(mastodon, "x".repeat(301))], "body.items[0].external_id"],
      [[], "body.items"],
    ];
    for (const [items, location] of cases) {
      const problem = expectProblem(await importAs(owner.token, ws, items), 422, "validation-error");
      expect(
        problem.errors?.map((e) => e.location),
        JSON.stringify(items).slice(0, 200),
      ).toContain(location);
    }
    expect(await itemsOf(ws)).toHaveLength(0);
    expect(await measurementCount(ws)).toBe(0);
    // The other workspace's account was not touched either.
    expect(await itemsOf(other.ws)).toHaveLength(0);
  });

  it("takes 1,000 items in one request and refuses 1,001", async () => {
    const { owner, ws, mastodon } = await setup();
    const many = (n: number) => Array.from({ length: n }, (_, i) => item(mastodon, `p${i}`, { likes: i }));
    const tooMany = await importAs(owner.token, ws, many(1001));
    expect(expectProblem(tooMany, 422, "validation-error").errors?.[0].location).toBe("body.items");
    const ok = expectData(await importAs(owner.token, ws, many(1000)));
    expect(ok.created).toBe(1000);
    expect(await measurementCount(ws)).toBe(1000);
  });

  it("404 for another workspace, 403 for a viewer, 401 without a token", async () => {
    const { owner, viewer, outsider, ws, mastodon } = await setup();
    const items = [item(mastodon, "z")];
    expectProblem(await importAs(outsider.token, ws, items), 404, "not-found");
    expectProblem(await importAs(viewer.token, ws, items), 403, "forbidden");
    expectProblem(await importAs(undefined, ws, items), 401, "unauthorized");
    // A body that is not JSON, which the typed client cannot send: sent raw.
    expectRawProblem(
      await api("POST", "/analytics/measurements", { token: owner.token, body: "{not json", headers: { "content-type": "application/json" } }),
      400,
      "bad-request",
    );
    expect(await itemsOf(ws)).toHaveLength(0);
  });
});

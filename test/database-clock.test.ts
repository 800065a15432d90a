import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { analyticsCoverage } from "../db/schema";
import { queueDueAccounts } from "../lib/analytics/schedule";
import { databaseNow } from "../lib/db/clock";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";

// CONTRACT §9: the database's clock decides schedules and expiries, whatever the Worker's clock says.
afterEach(() => vi.useRealTimers());

describe("the database's clock", () => {
  it("is what databaseNow answers, with the Worker's clock 5 minutes off either way", async () => {
    for (const offset of [5 * 60_000, -5 * 60_000]) {
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + offset });
      const db = await withDb(async (q) => (await q.execute<{ ms: string }>(sql`select (extract(epoch from now()) * 1000)::text as ms`)).rows[0].ms);
      const answered = await withDb(databaseNow);
      expect(Math.abs(answered.getTime() - Number(db))).toBeLessThan(1000);
      expect(Math.abs(answered.getTime() - Date.now())).toBeGreaterThan(4 * 60_000);
      vi.useRealTimers();
    }
  });

  it("decides which accounts the analytics scheduler queues: one due in 2 minutes waits, with the Worker 5 minutes ahead", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const account = await newAccount(ws, owner.id, "mastodon", { instanceUrl: "https://mastodon.example" });
    await withDb((db) => db.insert(analyticsCoverage).values({ accountId: account, workspaceId: ws, nextEligibleAt: sql`now() + interval '2 minutes'` }));
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 5 * 60_000 });
    expect(await withDb((db) => queueDueAccounts(db, undefined, { workspaceId: ws }))).toEqual([]);
    vi.useRealTimers();
    await withDb((db) =>
      db.update(analyticsCoverage).set({ nextEligibleAt: sql`now() - interval '1 second'` }).where(eq(analyticsCoverage.accountId, account)),
    );
    expect(await withDb((db) => queueDueAccounts(db, undefined, { workspaceId: ws }))).toHaveLength(1);
  });
});

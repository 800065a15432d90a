import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { outboundEvents, socialAccounts, webhookDeliveries } from "../db/schema";
import { inOneTransaction } from "../lib/db/batch";
import { emitEvent } from "../lib/events/emit";
import { accountReconnectRequiredStatements } from "../lib/events/subjects";
import { bounds } from "../lib/retention/batch";
import { sweepHistory } from "../lib/retention/history";
import { RETENTION } from "../lib/retention/periods";
import type { EventType } from "../lib/events/types";
import { client } from "./helpers/client";
import { runBuildJob } from "./helpers/builds";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { expectData } from "./helpers/typed";

/** The events of builds and accounts, written where those changes are (lib/builds/run.ts; an OAuth refresh refused). */

async function setup(events: EventType[]) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  expectData(await client(owner.token).POST("/webhook-endpoints", { body: { workspace_id: ws, url: "http://127.0.0.1:9/hook", events } }), 201);
  return { owner, ws };
}

const eventsOf = (ws: string) => withDb((db) => db.select().from(outboundEvents).where(eq(outboundEvents.workspaceId, ws)));

describe("build and account events", () => {
  it("a build completed by its consumer writes build.completed with ids and its state", async () => {
    const { owner, ws } = await setup(["build.completed", "build.failed"]);
    const account = await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
    const build = expectData(
      await client(owner.token).POST("/publication-builds", {
        body: {
          workspace_id: ws,
          idea: "We launched.",
          sources: [{ kind: "text", text: "Herald plans every destination at once." }],
          destination_account_ids: [account],
        },
      }),
      202,
    );
    expect(await runBuildJob(build.id)).toBe("completed");
    const events = await eventsOf(ws);
    expect(events).toMatchObject([{ type: "build.completed", data: { build_id: build.id, state: "completed", phase: "done" } }]);
    expect(await withDb((db) => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, events[0].id)))).toHaveLength(1);
  });

  it("account.reconnect_required goes with the update that marks the account, and only if it applied", async () => {
    const { owner, ws } = await setup(["account.reconnect_required"]);
    const account = await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
    const mark = () =>
      withDb((db) =>
        inOneTransaction(db, (q) => [
          q
            .update(socialAccounts)
            .set({ status: "reconnect_required", updatedAt: sql`now()` })
            .where(sql`${socialAccounts.id} = ${account} and ${socialAccounts.status} = 'active'`),
          ...accountReconnectRequiredStatements(account),
        ]),
      );
    await mark();
    expect(await eventsOf(ws)).toMatchObject([
      { type: "account.reconnect_required", data: { account_id: account, platform: "webhook", status: "reconnect_required" } },
    ]);
    await mark(); // already marked: the update applies to nothing, so no second event
    expect(await eventsOf(ws)).toHaveLength(1);
  });

  it(`events older than ${RETENTION.outboundEventsDays} days go with their deliveries and attempts; newer ones stay`, async () => {
    const { ws } = await setup(["build.failed"]);
    for (const id of ["old", "new"]) await withDb((db) => db.transaction((tx) => emitEvent(tx, ws, "build.failed", { build_id: `bld_${id}` })));
    const [older] = await eventsOf(ws);
    await withDb((db) =>
      db
        .update(outboundEvents)
        .set({ createdAt: sql`now() - make_interval(days => ${RETENTION.outboundEventsDays + 1})` })
        .where(eq(outboundEvents.id, older.id)),
    );
    const report = await withDb((db) => sweepHistory(db, bounds()));
    expect(report.outboundEvents).toBeGreaterThanOrEqual(1);
    const left = await eventsOf(ws);
    expect(left.map((e) => e.data.build_id)).toEqual([older.data.build_id === "bld_old" ? "bld_new" : "bld_old"]);
    const deliveries = await withDb((db) => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.workspaceId, ws)));
    expect(deliveries.map((d) => d.eventId)).toEqual([left[0].id]);
  });
});

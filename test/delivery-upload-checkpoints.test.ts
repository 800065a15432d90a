import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renditions } from "../db/schema";
import { claimRenditions } from "../lib/delivery/store";
import { clearCheckpoint, loadCheckpoint, saveCheckpoint } from "../lib/delivery/upload-checkpoints";
import type { UploadCheckpoint } from "../lib/providers/types";
import { api, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

/**
 * Durable chunked-upload progress (lib/delivery/upload-checkpoints.ts) against the real database: saved with the
 * lease renewed, read back by the next attempt, and fenced like every write of a delivery: an attempt that lost
 * the rendition writes nothing and is told so.
 */

const SECRET = "whsec_" + Buffer.from("checkpoint test secret").toString("base64");
let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
});
afterAll(() => receiver.stop());

async function queuedRendition() {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
  const created = await api("POST", "/publications", {
    token: owner.token,
    json: { workspace_id: ws, title: "Video", source_text: "Once", destinations: [{ social_account_id: hook }] },
  });
  expect((await api("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } })).status).toBe(202);
  const [row] = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id)));
  return row.id;
}

const cp = (offset: number): UploadCheckpoint => ({
  session: "https://upload.example/s1",
  platformId: null,
  total: 1000,
  chunkSize: 100,
  offset,
  phase: "uploading",
});

describe("upload checkpoints", () => {
  it("saves with the lease renewed, loads for the next attempt, and a late attempt writes nothing", async () => {
    const id = await queuedRendition();
    await withDb(async (db) => {
      const [first] = await claimRenditions(db, [id], "job_ckpt_1");
      await db.execute(sql`update renditions set lease_until = now() + interval '5 seconds' where id = ${id}`);
      expect(await saveCheckpoint(db, first, "video-0", cp(300))).toBe(true);
      const [{ lease }] = (await db.execute(sql`select extract(epoch from lease_until - now()) as lease from renditions where id = ${id}`)).rows as {
        lease: string;
      }[];
      expect(Number(lease)).toBeGreaterThan(60);
      expect(await loadCheckpoint(db, id, "video-0")).toEqual(cp(300));
      expect(await loadCheckpoint(db, id, "video-1")).toBeNull();

      // The first attempt's lease lapses; a second attempt takes the rendition.
      await db.execute(sql`update renditions set lease_until = now() - interval '1 second' where id = ${id}`);
      const [second] = await claimRenditions(db, [id], "job_ckpt_2");
      expect(second.attemptId).not.toBe(first.attemptId);
      expect(await saveCheckpoint(db, first, "video-0", cp(900))).toBe(false);
      await clearCheckpoint(db, first, "video-0");
      expect(await loadCheckpoint(db, id, "video-0")).toEqual(cp(300));
      expect(await saveCheckpoint(db, second, "video-0", cp(400))).toBe(true);
      expect((await loadCheckpoint(db, id, "video-0"))?.offset).toBe(400);
      await clearCheckpoint(db, second, "video-0");
      expect(await loadCheckpoint(db, id, "video-0")).toBeNull();
    });
  });
});

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renditions, socialAccounts, uploadCheckpoints } from "../db/schema";
import type { Env } from "../lib/env";
import { PROCESSING_CODE } from "../lib/providers/platform-processing";
import { ensureQueues } from "../local/services/sqs";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { call, startMediaStorage, upload, type MediaStorage } from "./helpers/media";
import { makeDueNow, runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { serveGateway, type ServedGateway } from "./helpers/serve-gateway";
import { startMetaGraphApi, type MetaGraphApiPeer } from "./peers/meta-graph-api";
import { writeBigMp4 } from "./peers/range-file-host";

/**
 * An Instagram Reel through the whole pipeline: POST /publications with one video (an MP4 this test makes from
 * the fixture clip) to an Instagram account, publish-now, the publish consumer drained. Instagram is the test
 * double written from Meta's Content Publishing reference (test/peers/meta-graph-api.ts), which fetches the video
 * from Herald's signed media URL and keeps its REELS container IN_PROGRESS for longer than one attempt polls, so
 * the delivery waits as `retrying` with error_code platform-processing and the next attempt polls the same
 * container (kept in upload_checkpoints) until it is FINISHED and published.
 */

const CLIP = "test/fixtures/media/clip-64x48-12fps-2s.mp4";

let storage: MediaStorage;
let served: ServedGateway;
let api: MetaGraphApiPeer;
let e: Env;

beforeAll(async () => {
  [api, storage] = await Promise.all([startMetaGraphApi(), startMediaStorage()]);
  // Queues of this file's own, so that only this file's consumer (with this env) delivers its publications.
  const queues = await ensureQueues(env, `igreels-${Date.now()}-`);
  served = await serveGateway({
    ...storage.env,
    ...queues,
    INSTAGRAM_CLIENT_ID: "herald-instagram-reels",
    INSTAGRAM_CLIENT_SECRET: "instagram-reels-secret",
    INSTAGRAM_API_BASE: api.url,
    INSTAGRAM_AUTH_BASE: api.url,
  } as Env);
  e = served.env;
}, 60_000);
afterAll(async () => {
  await Promise.all([api?.stop(), served?.stop()]);
  await storage?.dispose();
});

describe("Instagram Reels through the pipeline", () => {
  it("publishes one video as a Reel: processing polled across attempts, one container, the video's bytes at Instagram", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const file = join(mkdtempSync(join(tmpdir(), "herald-igreel-")), "reel.mp4");
    await writeBigMp4(file, CLIP, 256 * 1024);
    const bytes = readFileSync(file);
    const uploaded = await upload(e, owner.token, { workspaceId: ws, bytes: new Uint8Array(bytes), filename: "reel.mp4" });
    expect(uploaded.status, uploaded.text).toBe(201);
    expect(uploaded.body).toMatchObject({ mime_type: "video/mp4", size: bytes.length });

    const { page } = api.addUser({ instagram: true });
    const ig = await newAccount(ws, owner.id, "instagram", { credentials: { access_token: page.token, page_id: page.id } });
    await withDb((db) => db.update(socialAccounts).set({ externalAccountId: page.ig!.id }).where(eq(socialAccounts.id, ig)));

    const created = await call(e, "POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "A short film #herald", media_ids: [uploaded.body.id], destinations: [{ social_account_id: ig }] },
    });
    expect(created.status, created.text).toBe(201);
    // One attempt polls 3 times: the container stays IN_PROGRESS for 4 looks, so the first attempt cannot finish.
    api.setReelPolls(4);
    try {
      const started = await call(e, "POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } });
      expect(started.status, started.text).toBe(202);
      const waiting = async () => (await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id))))[0];
      const deadline = Date.now() + 30_000;
      while ((await waiting()).status !== "retrying") {
        expect(Date.now() < deadline, "the first attempt should end retrying").toBe(true);
        await runPipeline(created.body.id, { env: e, timeoutMs: 30_000, until: () => true });
      }
      const first = await waiting();
      expect(first).toMatchObject({ status: "retrying", errorCode: PROCESSING_CODE });
      const [kept] = await withDb((db) => db.select().from(uploadCheckpoints).where(eq(uploadCheckpoints.renditionId, first.id)));
      const [container] = api.reelContainersOf(page.ig!.id);
      expect(kept.checkpoint).toMatchObject({ platformId: container.id, phase: "processing" });
      expect(api.postsOf(page.ig!.id)).toEqual([]);

      await makeDueNow(created.body.id);
      expect(await runPipeline(created.body.id, { env: e, timeoutMs: 30_000 })).toBe("published");
    } finally {
      api.setReelPolls(1);
    }
    expect(api.reelContainersOf(page.ig!.id)).toHaveLength(1);
    const [post] = api.postsOf(page.ig!.id);
    expect(post.text).toBe("A short film #herald");
    expect(Buffer.from(post.video!).equals(bytes)).toBe(true);
    const [done] = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id)));
    expect(done).toMatchObject({ status: "published", externalId: post.id, externalUrl: post.permalink });
  }, 90_000);
});

import { spawn } from "node:child_process";
import { SetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renditions } from "../db/schema";
import type { Env } from "../lib/env";
import { sqsClient } from "../lib/jobs/sqs";
import { ensureQueues } from "../local/services/sqs";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { clientWithEnv, expectData } from "./helpers/typed";
import { startPds, type PdsPeer } from "./peers/bluesky-pds";
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";

let pds: PdsPeer;
let mastodon: MastodonPeer;
beforeAll(async () => {
  [pds, mastodon] = await Promise.all([startPds(), startMastodon()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([pds?.stop(), mastodon?.stop()]);
});

const THREE = ["First post of the thread.", "Second post follows.", "Third and last."];

async function blueskyPublication(e: Env = env) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const who = await pds.createAccount();
  const acc = await newAccount(ws, owner.id, "bluesky", {
    instanceUrl: pds.url,
    username: who.handle,
    credentials: { identifier: who.handle, app_password: who.appPassword },
  });
  const res = await clientWithEnv(owner.token, e).POST("/publications", {
    body: {
      workspace_id: ws,
      source_text: THREE.join(" "),
      destinations: [{ social_account_id: acc, segments: THREE.map((body) => ({ body })) }],
    },
  });
  return { owner, who, pub: expectData(res, 201) };
}

/** The parts of an app.bsky.feed.post record these tests read. */
interface PostRecord {
  text: string;
  reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
}

function expectReplyChain(posts: { uri: string; cid: string; value: PostRecord }[]) {
  const ordered = THREE.map((text) => posts.find((p) => p.value.text === text)!);
  expect(ordered.every(Boolean)).toBe(true);
  const [root, second, third] = ordered;
  expect(root.value.reply).toBeUndefined();
  expect(second.value.reply).toEqual({ root: { uri: root.uri, cid: root.cid }, parent: { uri: root.uri, cid: root.cid } });
  expect(third.value.reply).toEqual({ root: { uri: root.uri, cid: root.cid }, parent: { uri: second.uri, cid: second.cid } });
}

describe("publishing threads to real peers", () => {
  it("Bluesky (a real PDS): a three-segment thread reads back as a reply chain", async () => {
    const { owner, who, pub } = await blueskyPublication();
    const c = client(owner.token);
    expect((await c.POST("/publications/{id}/publish-now", { params: { path: { id: pub.id } }, body: { expected_revision: 1 } })).response.status).toBe(202);
    expect(await runPipeline(pub.id)).toBe("published");
    const posts = await pds.listPosts(who.did);
    expect(posts).toHaveLength(3);
    expectReplyChain(posts);
    const got = expectData(await c.GET("/publications/{id}", { params: { path: { id: pub.id } } })).renditions[0];
    expect(got.external_id).toBe(posts.find((p) => p.value.text === THREE[0])?.uri);
    expect(got.segments.map((s) => s.status)).toEqual(["published", "published", "published"]);
  });

  it("Mastodon (a test double written from the API docs; no Mastodon server runs here): replies chain, each status with an Idempotency-Key", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const who = mastodon.addAccount();
    const acc = await newAccount(ws, owner.id, "mastodon", { instanceUrl: mastodon.url, username: who.username, credentials: { access_token: who.token } });
    const long = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of a story that needs more than one toot.`).join(" ");
    const c = client(owner.token);
    const created = await c.POST("/publications", { body: { workspace_id: ws, source_text: long, destinations: [{ social_account_id: acc }] } });
    const pub = expectData(created, 201);
    const segments = pub.renditions[0].segments.length;
    expect(segments).toBeGreaterThan(1);
    await c.POST("/publications/{id}/publish-now", { params: { path: { id: pub.id } }, body: { expected_revision: 1 } });
    expect(await runPipeline(pub.id)).toBe("published");
    const statuses = mastodon.statusesOf(who.id);
    expect(statuses).toHaveLength(segments);
    statuses.forEach((s, i) => {
      expect(s.idempotency_key).toBeTruthy();
      expect(s.in_reply_to_id).toBe(i === 0 ? null : statuses[i - 1].id);
    });
    expect(statuses.map((s) => s.text).join(" ")).toBe(long);
  });

  it("a consumer killed mid-delivery is redelivered and the thread is posted once", async () => {
    // Queues of its own with a short visibility timeout, so SQS redelivers within the test.
    const queues = await ensureQueues(env, `crash-${Date.now()}-`);
    const e = { ...env, ...queues } as Env;
    const sqs = sqsClient(e);
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queues.SQS_QUEUE_URL_PUBLISH, Attributes: { VisibilityTimeout: "3" } }));
    sqs.destroy();

    const { owner, who, pub } = await blueskyPublication(e);
    const res = await clientWithEnv(owner.token, e).POST("/publications/{id}/publish-now", {
      params: { path: { id: pub.id } },
      body: { expected_revision: 1 },
    });
    expect(res.response.status).toBe(202);

    const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/publish-consumer-process.ts"], {
      env: { ...process.env, HERALD_TEST_ENV: JSON.stringify(e), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    // Kill it the moment the first post reaches the PDS: the rest of the thread is not yet out.
    const deadline = Date.now() + 30_000;
    while ((await pds.listPosts(who.did)).length === 0) {
      if (Date.now() > deadline) throw new Error("the child consumer never posted");
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGKILL");
    await exited;
    expect((await pds.listPosts(who.did)).length).toBeLessThan(3);

    // The dead consumer's lease would lapse after two minutes; let that time pass.
    await withDb((db) =>
      db
        .update(renditions)
        .set({ leaseUntil: new Date(Date.now() - 1000) })
        .where(eq(renditions.publicationId, pub.id)),
    );
    expect(await runPipeline(pub.id, { env: e, timeoutMs: 30_000 })).toBe("published");
    const posts = await pds.listPosts(who.did);
    expect(posts).toHaveLength(3);
    expectReplyChain(posts);
  }, 90_000);
});

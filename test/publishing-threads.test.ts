import { spawn } from "node:child_process";
import { SetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { renditions } from "../db/schema";
import type { Env } from "../lib/env";
import { sqsClient } from "../lib/jobs/sqs";
import { ensureQueues } from "../local/services/sqs";
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
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
  const res = await gateway.request(
    "/publications",
    {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        workspace_id: ws,
        source_text: THREE.join(" "),
        destinations: [{ social_account_id: acc, segments: THREE.map((body) => ({ body })) }],
      }),
    },
    e,
  );
  expect(res.status).toBe(201);
  return { owner, who, pub: (await res.json()) as any };
}

function expectReplyChain(posts: { uri: string; cid: string; value: any }[]) {
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
    expect((await api("POST", `/publications/${pub.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } })).status).toBe(202);
    expect(await runPipeline(pub.id)).toBe("published");
    const posts = await pds.listPosts(who.did);
    expect(posts).toHaveLength(3);
    expectReplyChain(posts);
    const got = (await api("GET", `/publications/${pub.id}`, { token: owner.token })).body.renditions[0];
    expect(got.external_id).toBe(posts.find((p) => p.value.text === THREE[0])!.uri);
    expect(got.segments.map((s: any) => s.status)).toEqual(["published", "published", "published"]);
  });

  it("Mastodon (a test double written from the API docs; no Mastodon server runs here): replies chain, each status with an Idempotency-Key", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const who = mastodon.addAccount();
    const acc = await newAccount(ws, owner.id, "mastodon", { instanceUrl: mastodon.url, username: who.username, credentials: { access_token: who.token } });
    const long = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of a story that needs more than one toot.`).join(" ");
    const { body: pub } = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: long, destinations: [{ social_account_id: acc }] },
    });
    const segments = pub.renditions[0].segments.length;
    expect(segments).toBeGreaterThan(1);
    await api("POST", `/publications/${pub.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } });
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
    const res = await gateway.request(
      `/publications/${pub.id}/publish-now`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
        body: JSON.stringify({ expected_revision: 1 }),
      },
      e,
    );
    expect(res.status).toBe(202);

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

import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHeraldClient, type HeraldClient } from "../client";
import { randomText } from "../lib/ids";
import { freePort } from "../local/services/ports";
import { descendants, sleep } from "../local/services/processes";
import { REPO_ROOT } from "../local/services/wrangler";
import { removeLinkedData } from "./helpers/clone";
import { expectData } from "./helpers/typed";
import { startWebhookReceiver, verifySignature, type WebhookPeer } from "./peers/webhook-receiver";

/**
 * Issue 30's outbound events against the real stack: `npm start` (as test/launcher.test.ts starts it), an endpoint
 * registered through the API pointing at a local receiver, a publication published: the receiver gets a signed
 * `publication.published` whose `webhook-id` is the event id, sent by the event-deliver consumer the launcher pumps.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "herald-events-"));
// Postgres runs as the OS user `postgres` when we are root: it must be able to enter the folder.
fs.chmodSync(root, 0o755);
const dataDir = path.join(root, "data");
const token = `hld_${randomText(40)}`;
let child: ChildProcess | undefined;
let url = "";
let platform: WebhookPeer; // where the publication goes
let hooks: WebhookPeer; // where its event goes
let herald: HeraldClient;

beforeAll(async () => {
  [platform, hooks] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  const ports = Object.fromEntries(
    await Promise.all(["PORT", "API_WORKER_PORT", "CONSUMERS_PORT", "PG_PORT", "WS_RELAY_PORT", "SQS_PORT"].map(async (k) => [k, String(await freePort())])),
  );
  child = spawn("npm", ["start", "--silent"], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...ports, DATA_DIR: dataDir, BOOTSTRAP_ADMIN_EMAIL: `events-${randomText(6)}@example.test`, BOOTSTRAP_ADMIN_TOKEN: token },
  });
  let output = "";
  url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /^Herald API listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output);
      if (match) resolve(match[1]);
    };
    child!.stdout!.on("data", onData);
    child!.stderr!.on("data", onData);
    child!.on("exit", (code) => reject(new Error(`npm start exited (${code}) before listening:\n${output}`)));
    setTimeout(() => reject(new Error(`not listening after 90 s:\n${output}`)), 90_000).unref();
  });
  herald = createHeraldClient({ baseUrl: url, token });
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.on("exit", resolve));
    process.kill(-child.pid!, "SIGINT");
    await Promise.race([exited, sleep(40_000)]);
    for (const p of descendants(child.pid!))
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {}
  }
  await Promise.all([platform?.stop(), hooks?.stop()]);
  removeLinkedData(path.join(dataDir, "pg"), root);
  fs.rmSync(root, { recursive: true, force: true });
}, 60_000);

describe("outbound events under npm start", () => {
  it("a publication published produces a signed publication.published at the endpoint, webhook-id = event id", { timeout: 90_000 }, async () => {
    const ws = expectData(await herald.POST("/workspaces", { body: { name: "Events" } }), 201).id;
    const endpoint = expectData(
      await herald.POST("/webhook-endpoints", { body: { workspace_id: ws, url: hooks.url, events: ["publication.published"] } }),
      201,
    );
    const account = expectData(
      await herald.POST("/accounts", { body: { workspace_id: ws, platform: "webhook", url: platform.url, username: "platform" } }),
      201,
    ).id;
    const pub = expectData(
      await herald.POST("/publications", {
        body: { workspace_id: ws, title: "Under npm start", source_text: "Hello", destinations: [{ social_account_id: account }] },
      }),
      201,
    );
    expectData(await herald.POST("/publications/{id}/publish-now", { params: { path: { id: pub.id } }, body: { expected_revision: 1 } }), 202);

    let log: Awaited<ReturnType<typeof deliveries>> = [];
    const deliveries = async () => expectData(await herald.GET("/webhook-endpoints/{id}/deliveries", { params: { path: { id: endpoint.id } } }));
    for (let polls = 0; polls < 120 && log[0]?.status !== "delivered"; polls++) {
      log = await deliveries();
      if (log[0]?.status !== "delivered") await sleep(500);
    }
    expect(log).toMatchObject([{ event_type: "publication.published", status: "delivered", attempts: 1, last_status_code: 200 }]);
    const [got] = hooks.attempts.filter((a) => a.webhookId === log[0].event_id);
    expect(got.body).toMatchObject({
      id: log[0].event_id,
      type: "publication.published",
      workspace_id: ws,
      data: { publication_id: pub.id, status: "published" },
    });
    // Checked by the receiver's own code (node:crypto) with the secret shown once at creation.
    expect(verifySignature(endpoint.secret, got.webhookId, got.timestamp, got.raw, got.signature ?? "")).toBe(true);
  });
});

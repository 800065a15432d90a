import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHeraldClient, type HeraldClient, type Schemas } from "../client";
import { randomText } from "../lib/ids";
import { freePort } from "../local/services/ports";
import { descendants, sleep } from "../local/services/processes";
import { REPO_ROOT } from "../local/services/wrangler";
import { removeLinkedData } from "./helpers/clone";
import { expectData, type Problem } from "./helpers/typed";
import { callTool, mcpClient } from "./helpers/mcp";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

/**
 * Issue 30 against the real stack: `npm start` (as test/launcher.test.ts starts it, once for both cases) serves the
 * typed client's example (client/example.ts, run as a person would) and an MCP client of the official SDK.
 */
const SECRET = `whsec_${Buffer.from("the npm start integration tests' secret").toString("base64")}`;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "herald-integrations-"));
// Postgres runs as the OS user `postgres` when we are root: it must be able to enter the folder.
fs.chmodSync(root, 0o755);
const dataDir = path.join(root, "data");
const token = `hld_${randomText(40)}`;
let child: ChildProcess | undefined;
let url = "";
let receiver: WebhookPeer;
let herald: HeraldClient;
let workspaceId = "";
let accountId = "";

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
  const ports = Object.fromEntries(
    await Promise.all(["PORT", "API_WORKER_PORT", "CONSUMERS_PORT", "PG_PORT", "WS_RELAY_PORT", "SQS_PORT"].map(async (k) => [k, String(await freePort())])),
  );
  child = spawn("npm", ["start", "--silent"], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...ports, DATA_DIR: dataDir, BOOTSTRAP_ADMIN_EMAIL: `integrations-${randomText(6)}@example.test`, BOOTSTRAP_ADMIN_TOKEN: token },
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
  workspaceId = expectData(await herald.POST("/workspaces", { body: { name: "Integrations" } }), 201).id;
  accountId = expectData(
    await herald.POST("/accounts", { body: { workspace_id: workspaceId, platform: "webhook", url: receiver.url, secret: SECRET, username: "receiver" } }),
    201,
  ).id;
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
  await receiver?.stop();
  removeLinkedData(path.join(dataDir, "pg"), root);
  fs.rmSync(root, { recursive: true, force: true });
}, 60_000);

const deliveriesFor = (publicationId: string) => receiver.deliveries.filter((d) => d.body?.publication_id === publicationId);

describe("under npm start", () => {
  it("client/example.ts creates a publication, publishes it now and prints its rendition reaching published", { timeout: 90_000 }, async () => {
    const { stdout } = await promisify(execFile)("npx", ["tsx", "client/example.ts"], {
      cwd: REPO_ROOT,
      env: { ...process.env, HERALD_URL: url, HERALD_TOKEN: token, HERALD_WORKSPACE_ID: workspaceId, HERALD_ACCOUNT_ID: accountId },
      timeout: 80_000,
    });
    const id = /^publication (pub_\S+): publishing \(job job_\S+\)$/m.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    expect(stdout).toMatch(/^rendition \S+ \(webhook\): published http/m);
    expect(stdout).toContain(`publication ${id}: published`);
    expect(deliveriesFor(id!)).toHaveLength(1);
    expect(deliveriesFor(id!)[0].signatureValid).toBe(true);
  });

  it("an MCP client of the official SDK lists tools, creates and publishes; a viewer's token cannot publish", { timeout: 90_000 }, async () => {
    const mcp = await mcpClient(url, token);
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["publications_create", "publications_publish_now", "workspaces_list"]));
      const created = await callTool<Schemas["PublicationResponse"]>(mcp, "publications_create", {
        workspace_id: workspaceId,
        source_text: "Published by an agent through MCP",
        destinations: [{ social_account_id: accountId }],
      });
      expect(created.isError, created.text).toBe(false);
      const { id } = created.body;
      const key = `mcp-${id}`;
      for (let i = 0; i < 2; i++) {
        const queued = await callTool(mcp, "publications_publish_now", { id, expected_revision: 1, idempotency_key: key });
        expect(queued.isError, queued.text).toBe(false);
      }
      let status = "";
      for (let polls = 0; polls < 120 && status !== "published"; polls++) {
        status = (await callTool<Schemas["PublicationResponse"]>(mcp, "publications_get", { id })).body.status;
        if (status !== "published") await sleep(500);
      }
      expect(status).toBe("published");
      expect(deliveriesFor(id)).toHaveLength(1);

      // A viewer (a user the administrator made, added to the workspace as a viewer) is refused as over HTTP.
      const viewer = expectData(await herald.POST("/admin/users", { body: { email: `viewer-${randomText(6)}@example.test` } }), 201);
      expectData(
        await herald.POST("/workspaces/{id}/members", { params: { path: { id: workspaceId } }, body: { user_id: viewer.user.id, role: "viewer" } }),
        201,
      );
      const draft = await callTool<Schemas["PublicationResponse"]>(mcp, "publications_create", {
        workspace_id: workspaceId,
        source_text: "Not for viewers",
        destinations: [{ social_account_id: accountId }],
      });
      const viewers = await mcpClient(url, viewer.token);
      try {
        const refused = await callTool<Problem>(viewers, "publications_publish_now", { id: draft.body.id, expected_revision: 1, idempotency_key: "viewer" });
        expect(refused).toMatchObject({ isError: true, body: { type: "forbidden", status: 403 } });
        const http = await createHeraldClient({ baseUrl: url, token: viewer.token }).POST("/publications/{id}/publish-now", {
          params: { path: { id: draft.body.id } },
          body: { expected_revision: 1 },
        });
        expect(http.response.status).toBe(403);
        expect(refused.body.detail).toBe(http.error?.detail);
      } finally {
        await viewers.close();
      }
      // Without a token, the endpoint answers 401 problem+json.
      const anonymous = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("content-type")).toContain("application/problem+json");
    } finally {
      await mcp.close();
    }
  });
});

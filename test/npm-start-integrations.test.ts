import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHeraldClient, type HeraldClient, type Schemas } from "../client";
import { randomText } from "../lib/ids";
import { startHerald } from "../local/services/herald-process";
import { sleep } from "../local/services/processes";
import { REPO_ROOT } from "../local/services/wrangler";
import { callTool, mcpClient } from "./helpers/mcp";
import { expectData, type Problem } from "./helpers/typed";
import { startWebhookReceiver, verifySignature, type WebhookPeer } from "./peers/webhook-receiver";
import { startXApi, type XApiPeer } from "./peers/x-api";

/**
 * Issues 28 and 30 against the real stack, one `npm start` (local/services/herald-process.ts) for every case: an OAuth
 * connection to X through the base-URL settings (the X API TEST DOUBLE, test/peers/x-api.ts, with its OAuth 2.0
 * endpoints), the typed client's example (client/example.ts, run as a person would), an MCP client of the official
 * SDK, and outbound events sent by the event-deliver consumer the launcher pumps, to a receiver that checks their
 * signatures.
 */
const X_CLIENT = { clientId: "herald-e2e", clientSecret: "herald-e2e-secret" };
const SECRET = `whsec_${Buffer.from("the npm start integration tests' secret").toString("base64")}`;
const token = `hld_${randomText(40)}`;
let stack: Awaited<ReturnType<typeof startHerald>> | undefined;
let url = "";
let xApi: XApiPeer;
let receiver: WebhookPeer; // where publications go
let hooks: WebhookPeer; // where their events go
let herald: HeraldClient;
let workspaceId = "";
let accountId = "";

beforeAll(async () => {
  [receiver, hooks, xApi] = await Promise.all([startWebhookReceiver({ secret: SECRET }), startWebhookReceiver(), startXApi({ oauth: X_CLIENT })]);
  // Access tokens that live a minute, below Herald's margin: every use of the account refreshes first.
  xApi.oauth?.authority.setAccessTokenTtl(60);
  stack = await startHerald({
    BOOTSTRAP_ADMIN_EMAIL: `integrations-${randomText(6)}@example.test`,
    BOOTSTRAP_ADMIN_TOKEN: token,
    // Instance settings given as environment variables, as an operator would point Herald at another X.
    X_CLIENT_ID: X_CLIENT.clientId,
    X_CLIENT_SECRET: X_CLIENT.clientSecret,
    X_API_BASE: xApi.url,
    X_AUTH_BASE: xApi.url,
  });
  url = `http://127.0.0.1:${stack.ports.PORT}`;
  herald = createHeraldClient({ baseUrl: url, token });
  workspaceId = expectData(await herald.POST("/workspaces", { body: { name: "Integrations" } }), 201).id;
  accountId = expectData(
    await herald.POST("/accounts", { body: { workspace_id: workspaceId, platform: "webhook", url: receiver.url, secret: SECRET, username: "receiver" } }),
    201,
  ).id;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await Promise.all([receiver?.stop(), hooks?.stop(), xApi?.stop()]);
}, 60_000);

const deliveriesFor = (publicationId: string) => receiver.deliveries.filter((d) => d.body?.publication_id === publicationId);

/** Polls a publication until it ends (or a minute passes). */
async function settled(id: string) {
  let publication = expectData(await herald.GET("/publications/{id}", { params: { path: { id } } }));
  for (let polls = 0; polls < 120 && !["published", "failed", "partially_published"].includes(publication.status); polls++) {
    await sleep(500);
    publication = expectData(await herald.GET("/publications/{id}", { params: { path: { id } } }));
  }
  return publication;
}

describe("under npm start", () => {
  it("a request refused before its body was read (401) does not spoil the next request with a body", async () => {
    // wrangler dev's proxy answered the next such request 503 "Your worker restarted mid-request" until the Workers
    // drained what they left unread (lib/http/body-gate.ts drainUnreadBody): reproduced with these two requests.
    const refused = await fetch(`${url}/workspaces`, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(1 << 20) });
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
    const res = await herald.POST("/workspaces", { body: { name: "After a refused upload" } });
    expect(res.response.status, res.error?.detail).toBe(201);
  });

  it("connects an X account by OAuth (PKCE) through the base-URL settings, publishes with a refreshed token, and a refused refresh asks for a reconnection", {
    timeout: 90_000,
  }, async () => {
    const user = xApi.addAccount("herald_e2e");
    xApi.connectNext(user.id);
    const started = expectData(
      await herald.POST("/accounts/connect/{platform}/start", { params: { path: { platform: "x" } }, body: { workspace_id: workspaceId } }),
      201,
    );
    // The browser: to X's authorize page (the stand-in approves at once), back to Herald's callback, on to Herald's page.
    const approved = await fetch(started.authorization_url, { redirect: "manual" });
    expect(approved.status).toBe(302);
    const callback = new URL(approved.headers.get("location")!);
    expect(callback.pathname).toBe("/accounts/connect/x/callback");
    const done = await fetch(new URL(callback.pathname + callback.search, url), { redirect: "manual" });
    expect(done.status).toBe(302);
    const back = new URL(done.headers.get("location")!);
    expect(back.searchParams.get("error")).toBeNull();
    const accountId = back.searchParams.get("account_id")!;
    const accounts = expectData(await herald.GET("/accounts", { params: { query: { workspace_id: workspaceId } } }));
    expect(accounts.find((a) => a.id === accountId)).toMatchObject({ platform: "x", status: "active", account_username: "herald_e2e" });
    // The state is spent: the same callback again creates nothing.
    expect((await fetch(new URL(callback.pathname + callback.search, url), { redirect: "manual" })).status).toBe(400);

    const publish = async (text: string) => {
      const draft = expectData(
        await herald.POST("/publications", { body: { workspace_id: workspaceId, source_text: text, destinations: [{ social_account_id: accountId }] } }),
        201,
      );
      expectData(await herald.POST("/publications/{id}/publish-now", { params: { path: { id: draft.id } }, body: { expected_revision: draft.revision } }), 202);
      return settled(draft.id);
    };
    const refreshesBefore = xApi.oauth!.authority.refreshCount;
    const first = await publish("Posted to X through npm start");
    expect(first.status).toBe("published");
    expect(xApi.postsOf(user.id)).toHaveLength(1);
    expect(xApi.oauth!.authority.refreshCount).toBeGreaterThan(refreshesBefore);

    xApi.oauth!.authority.refuseRefreshes(true);
    const second = await publish("Not posted: the refresh is refused");
    expect(second.status).toBe("failed");
    expect(second.renditions[0].delivery.recovery_action).toBe("reconnect_account");
    expect(xApi.postsOf(user.id)).toHaveLength(1);
    const after = expectData(await herald.GET("/accounts", { params: { query: { workspace_id: workspaceId } } }));
    expect(after.find((a) => a.id === accountId)?.status).toBe("reconnect_required");
  });

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
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["createPublication", "publishPublicationNow", "listWorkspaces"]));
      const created = await callTool<Schemas["PublicationResponse"]>(mcp, "createPublication", {
        workspace_id: workspaceId,
        source_text: "Published by an agent through MCP",
        destinations: [{ social_account_id: accountId }],
      });
      expect(created.isError, created.text).toBe(false);
      const { id } = created.body;
      const key = `mcp-${id}`;
      for (let i = 0; i < 2; i++) {
        const queued = await callTool(mcp, "publishPublicationNow", { id, expected_revision: 1, idempotency_key: key });
        expect(queued.isError, queued.text).toBe(false);
      }
      let status = "";
      for (let polls = 0; polls < 120 && status !== "published"; polls++) {
        status = (await callTool<Schemas["PublicationResponse"]>(mcp, "getPublication", { id })).body.status;
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
      const draft = await callTool<Schemas["PublicationResponse"]>(mcp, "createPublication", {
        workspace_id: workspaceId,
        source_text: "Not for viewers",
        destinations: [{ social_account_id: accountId }],
      });
      const viewers = await mcpClient(url, viewer.token);
      try {
        const refused = await callTool<Problem>(viewers, "publishPublicationNow", { id: draft.body.id, expected_revision: 1, idempotency_key: "viewer" });
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

  it("a publication published produces a signed publication.published at the endpoint, webhook-id = event id", { timeout: 90_000 }, async () => {
    const ws = expectData(await herald.POST("/workspaces", { body: { name: "Events" } }), 201).id;
    const endpoint = expectData(
      await herald.POST("/webhook-endpoints", { body: { workspace_id: ws, url: hooks.url, events: ["publication.published"] } }),
      201,
    );
    const account = expectData(
      await herald.POST("/accounts", { body: { workspace_id: ws, platform: "webhook", url: receiver.url, secret: SECRET, username: "platform" } }),
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

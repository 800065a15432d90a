import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { route as createPublicationRoute } from "../functions/publications/create";
import { route as publishNowRoute } from "../functions/publications/publish-now";
import { toolInput } from "../functions/mcp/tool-input";
import { TOOLS } from "../functions/mcp/tools";
import type { Problem, Schemas } from "./helpers/typed";
import { client } from "./helpers/client";
import { env, expectProblem, newUser, newWorkspace, slugOf } from "./helpers/harness";
import { callTool, mcpClient } from "./helpers/mcp";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { serveGateway, type ServedGateway } from "./helpers/serve-gateway";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

const SECRET = `whsec_${Buffer.from("the MCP tests' own secret").toString("base64")}`;
let served: ServedGateway;
let receiver: WebhookPeer;
const open: Client[] = [];

beforeAll(async () => {
  [served, receiver] = await Promise.all([serveGateway(env), startWebhookReceiver({ secret: SECRET })]);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await Promise.all([served.stop(), receiver.stop()]);
});

async function connect(token: string) {
  const mcp = await mcpClient(served.url, token);
  open.push(mcp);
  return mcp;
}

/** An owner, a viewer and a webhook account in a fresh workspace. */
async function team() {
  const [owner, viewer] = await Promise.all([newUser(), newUser()]);
  const workspaceId = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
  const hook = await newAccount(workspaceId, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
  return { owner, viewer, workspaceId, hook };
}

describe("POST /mcp", () => {
  it("lists the tools, each with an input schema made of its operation's own schemas", async () => {
    const { owner } = await team();
    const mcp = await connect(owner.token);
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    const publish = tools.find((t) => t.name === "publishPublicationNow")!;
    expect(publish.inputSchema.required).toEqual(expect.arrayContaining(["id", "expected_revision"]));
    expect(Object.keys(publish.inputSchema.properties ?? {})).toContain("idempotency_key");
    expect(publish.description).toContain("POST /publications/{id}/publish-now");
    expect(mcp.getInstructions()).toMatch(/publishPublicationNow/);
    // The very zod schemas of the routes, not copies.
    const create = toolInput(createPublicationRoute);
    const createBody = createPublicationRoute.request.body.content["application/json"].schema;
    for (const [name, schema] of Object.entries(createBody.shape)) expect(create.schema.shape[name], name).toBe(schema);
    const publishNow = toolInput(publishNowRoute);
    expect(publishNow.schema.shape.id).toBe(publishNowRoute.request.params.shape.id);
    expect(publishNow.idempotent).toBe(true);
  });

  it("creates and publishes a publication; a repeated idempotency key publishes once; the publish job runs", async () => {
    const { owner, workspaceId, hook } = await team();
    const mcp = await connect(owner.token);
    const created = await callTool<Schemas["PublicationResponse"]>(mcp, "createPublication", {
      workspace_id: workspaceId,
      title: "From an agent",
      source_text: "Published through MCP",
      destinations: [{ social_account_id: hook }],
    });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    expect(created.body).toMatchObject({ status: "draft", revision: 1, workspace_id: workspaceId });
    const { id } = created.body;

    const key = `mcp-${id}`;
    const first = await callTool<Schemas["ActionOutputBody"]>(mcp, "publishPublicationNow", { id, expected_revision: 1, idempotency_key: key });
    expect(first.isError, JSON.stringify(first.body)).toBe(false);
    expect(first.body).toMatchObject({ publication_id: id, revision: 2, job_id: expect.stringMatching(/^job_/) });
    const again = await callTool<Schemas["ActionOutputBody"]>(mcp, "publishPublicationNow", { id, expected_revision: 1, idempotency_key: key });
    expect(again.isError, JSON.stringify(again.body)).toBe(false);
    expect(again.body.job_id).toBe(first.body.job_id);

    expect(await runPipeline(id)).toBe("published");
    const read = await callTool<Schemas["PublicationResponse"]>(mcp, "getPublication", { id });
    expect(read.body).toMatchObject({ status: "published", revision: 2 });
    expect(read.body.renditions.map((r) => r.status)).toEqual(["published"]);
    expect(receiver.deliveries.filter((d) => d.body?.publication_id === id)).toHaveLength(1);

    const listed = await callTool(mcp, "listPublications", { workspace_id: workspaceId });
    expect(listed.isError).toBe(false);
    const workspaces = await callTool(mcp, "listWorkspaces", {});
    expect((JSON.parse(workspaces.text) as Schemas["Workspace"][]).map((w) => w.id)).toContain(workspaceId);
  });

  it("a viewer's publish is the operation's own 403; bad input its 422; unknown ids its 404", async () => {
    const { owner, viewer, workspaceId, hook } = await team();
    const pub = await client(owner.token).POST("/publications", {
      body: { workspace_id: workspaceId, source_text: "Not for viewers", destinations: [{ social_account_id: hook }] },
    });
    const id = pub.data?.id ?? "";
    const http = await client(viewer.token).POST("/publications/{id}/publish-now", { params: { path: { id } }, body: { expected_revision: 1 } });
    expect(http.response.status).toBe(403);

    const mcp = await connect(viewer.token);
    const refused = await callTool(mcp, "publishPublicationNow", { id, expected_revision: 1, idempotency_key: "viewer-try" });
    expect(refused.isError).toBe(true);
    expect(refused.body).toMatchObject({ type: slugOf(http.error ?? {}), status: 403, detail: http.error?.detail });
    expect(refused.body.type).toBe("forbidden");
    // The viewer may read.
    expect((await callTool(mcp, "getPublication", { id })).body).toMatchObject({ id, status: "draft" });

    const owners = await connect(owner.token);
    const invalid = await callTool<Problem>(owners, "createPublication", { workspace_id: workspaceId, source_text: 42, destinations: [] });
    expect(invalid).toMatchObject({ isError: true, body: { type: "validation-error", status: 422 } });
    expect(invalid.body.errors?.map((e) => e.location)).toContain("body.source_text");
    const missing = await callTool(owners, "getBuild", { id: "bld_unknown" });
    expect(missing).toMatchObject({ isError: true, body: { type: "not-found", status: 404 } });
    await expect(owners.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("without a token: 401 problem+json; GET and DELETE: 405 (stateless, no stream, no session)", async () => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const anonymous = await fetch(`${served.url}/mcp`, { method: "POST", headers, body: JSON.stringify(message) });
    const text = await anonymous.text();
    expectProblem({ status: anonymous.status, headers: anonymous.headers, body: JSON.parse(text), text }, 401, "unauthorized");

    const { owner } = await team();
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${served.url}/mcp`, { method, headers: { authorization: `Bearer ${owner.token}`, accept: "text/event-stream" } });
      const body = await res.text();
      expectProblem({ status: res.status, headers: res.headers, body: JSON.parse(body), text: body }, 405, "method-not-allowed");
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("refuses at the HTTP level with problem+json, as every operation does: a wrong Accept (406), a message that is not JSON-RPC (400)", async () => {
    const { owner } = await team();
    const post = (accept: string, message: unknown) =>
      fetch(`${served.url}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json", accept },
        body: JSON.stringify(message),
      });
    const wrongAccept = await post("application/json", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    const wrongText = await wrongAccept.text();
    expectProblem({ status: wrongAccept.status, headers: wrongAccept.headers, body: JSON.parse(wrongText), text: wrongText }, 406, "not-acceptable");
    expect(JSON.parse(wrongText).detail).toMatch(/text\/event-stream/);

    const notRpc = await post("application/json, text/event-stream", { jsonrpc: "2.0", id: 2, result: 1, error: { code: 1 } });
    const notRpcText = await notRpc.text();
    expectProblem({ status: notRpc.status, headers: notRpc.headers, body: JSON.parse(notRpcText), text: notRpcText }, 400, "bad-request");
  });

  it("reaches a group through its GROUP_* service binding when the isolate has one, as a Worker of its own does", async () => {
    const { owner, workspaceId } = await team();
    const seen: string[] = [];
    const bound = Object.assign({}, env, {
      GROUP_WORKSPACES: {
        fetch: (request: Request) => {
          seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get("authorization") === `Bearer ${owner.token}`}`);
          return gateway.fetch(request, env);
        },
      },
    });
    const other = await serveGateway(bound);
    try {
      const mcp = await mcpClient(other.url, owner.token);
      const listed = await callTool(mcp, "listWorkspaces", {});
      expect(listed.isError).toBe(false);
      expect(listed.text).toContain(workspaceId);
      expect(seen).toEqual(["GET /workspaces true"]);
      await mcp.close();
    } finally {
      await other.stop();
    }
  });
});

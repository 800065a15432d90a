import { pathToFileURL } from "node:url";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passkeys } from "../db/schema";
import allGroups from "../functions/all-groups";
import gateway from "../functions/gateway";
import { ROUTES } from "../functions/routes";
import { openSession } from "../lib/auth/sessions";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { groupBinding } from "../lib/http/router";
import { routeTableProblems } from "../local/route-table";
import { REPO_ROOT } from "../local/services/wrangler";
import { groupFolders } from "../local/workers";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { fixture, startMediaStorage, uploadForm, type MediaStorage } from "./helpers/media";

/**
 * The gateway (functions/gateway.ts) in front of the real group Workers (functions/<group>/worker.ts),
 * each reached through a binding that calls that Worker's app in-process, as a service binding would.
 * Each binding notes the requests it receives, so the test sees which Worker served what.
 */
type Worker = { fetch(request: Request, env: Env): Promise<Response> | Response };
let storage: MediaStorage;
let workers: Record<string, Worker>;
let received: { group: string; request: Request }[] = [];
/** Called with each request a group Worker receives, before the Worker reads it. */
let onReceive: (group: string, request: Request) => void = () => {};

function routerEnv(omit?: string): Record<string, unknown> {
  const bindings: Record<string, unknown> = { PUBLIC_BASE_URL: storage.env.PUBLIC_BASE_URL };
  for (const [group, worker] of Object.entries(workers)) {
    if (group === omit) continue;
    bindings[groupBinding(group)] = {
      fetch: async (request: Request) => {
        received.push({ group, request });
        onReceive(group, request);
        return worker.fetch(request, storage.env);
      },
    };
  }
  return bindings;
}

const viaRouter = (pathAndQuery: string, init: RequestInit = {}, env = routerEnv()) => gateway.request(pathAndQuery, init, env);
const direct = (pathAndQuery: string, init: RequestInit = {}) => allGroups.request(pathAndQuery, init, storage.env);

/** A path template of an OpenAPI document with each parameter filled in. */
const filled = (template: string) => template.replace(/\{[^}]+\}/g, "x_1");

beforeAll(async () => {
  storage = await startMediaStorage();
  workers = {};
  for (const [group, folder] of await groupFolders()) {
    workers[group] = ((await import(pathToFileURL(path.join(REPO_ROOT, "functions", folder!, "worker.ts")).href)) as { default: Worker }).default;
  }
});
afterAll(() => storage?.dispose());

describe("the gateway routes to the group Workers", () => {
  it("functions/routes.ts is in step with the group apps", async () => {
    expect(await routeTableProblems()).toEqual([]);
    expect(Object.keys(ROUTES)).toEqual(Object.keys(workers));
  });

  it("sends every operation of every group's OpenAPI document to that group's Worker", async () => {
    let operations = 0;
    for (const [group, worker] of Object.entries(workers)) {
      const doc = (await (await worker.fetch(new Request(`${storage.env.PUBLIC_BASE_URL}/openapi.json`), storage.env)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const method of Object.keys(item).filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))) {
          received = [];
          // No token: each Worker answers 401 (or serves a public operation); which Worker answered is what counts.
          await viaRouter(filled(template), { method: method.toUpperCase() });
          expect(
            received.map((r) => r.group),
            `${method.toUpperCase()} ${template}`,
          ).toEqual([group]);
          operations++;
        }
      }
    }
    expect(operations).toBeGreaterThan(60);
  });

  it("sends each operation of the table, documented or not (the security page and its script), to its group", async () => {
    for (const [group, routes] of Object.entries(ROUTES)) {
      for (const route of routes) {
        const [method, template] = route.split(" ");
        received = [];
        await viaRouter(template.replace(/:[A-Za-z_]+/g, "x_1"), { method });
        expect(
          received.map((r) => r.group),
          route,
        ).toEqual([group]);
      }
    }
  });

  it("answers an unknown path or method exactly as the whole API does: 404 problem+json naming its schema (401 first without a token)", async () => {
    const user = await newUser();
    for (const token of [user.token, undefined]) {
      for (const [method, p] of [
        ["GET", "/nowhere"],
        ["POST", "/auth/me"],
        ["GET", "/workspaces/x_1/nowhere"],
        ["DELETE", "/openapi.json"],
      ]) {
        const init: RequestInit = { method, headers: token ? { authorization: `Bearer ${token}` } : {} };
        const [routed, whole] = await Promise.all([viaRouter(p, init), direct(p, init)]);
        expect(routed.status, `${method} ${p}`).toBe(token ? 404 : whole.status);
        expect(routed.headers.get("content-type")).toBe(whole.headers.get("content-type"));
        const body = (await routed.json()) as { $schema: string };
        expect(body).toEqual(await whole.json());
        expect(body.$schema).toMatch(/\/api\/v1\/schemas\/Problem\.json$/);
        expect(routed.headers.get("x-request-id")).toBeTruthy();
      }
    }
  });

  it("serves /openapi.json as the groups' documents merged: the very document of the whole API", async () => {
    const [routed, whole] = await Promise.all([viaRouter("/openapi.json"), direct("/openapi.json")]);
    expect(routed.status).toBe(200);
    expect(await routed.json()).toEqual(await whole.json());
    // Fetched once per isolate: a second request asks no group.
    received = [];
    expect((await viaRouter("/openapi.json")).status).toBe(200);
    expect(received).toEqual([]);
  });

  it("serves /docs and the JSON Schemas `$schema` names as the whole API does; /healthz and /problems/… from a group", async () => {
    for (const p of [
      "/docs",
      "/api/v1/schemas/UserProfile.json",
      "/api/v1/schemas/MediaItem.json",
      "/api/v1/schemas/Nope.json",
      "/problems/not-found",
      "/healthz",
    ]) {
      const [routed, whole] = await Promise.all([viaRouter(p), direct(p)]);
      expect(routed.status, p).toBe(whole.status);
      expect(routed.headers.get("content-type"), p).toBe(whole.headers.get("content-type"));
      // The reference page has a fresh CSP nonce each time.
      const same = (text: string) => text.replace(/[0-9a-f]{32}/g, "nonce");
      expect(same(await routed.text()), p).toBe(same(await whole.text()));
    }
  });

  it("passes the client's address, headers and the response's own headers through", async () => {
    const user = await newUser();
    received = [];
    const res = await viaRouter("/auth/me", { headers: { authorization: `Bearer ${user.token}`, "cf-connecting-ip": "203.0.113.7", "x-custom": "kept" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { email: string }).email).toBe(user.email);
    expect(received).toHaveLength(1);
    expect(received[0].request.headers.get("cf-connecting-ip")).toBe("203.0.113.7");
    expect(received[0].request.headers.get("x-custom")).toBe("kept");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("passes Set-Cookie back untouched (signing out of a browser session)", async () => {
    const user = await newUser();
    const session = await withDb(async (db) => {
      const passkeyId = newId("pk");
      await db.insert(passkeys).values({ id: passkeyId, userId: user.id, name: "test", credentialId: newId("cred"), publicKey: "x" });
      return openSession(db, user.id, passkeyId);
    });
    const res = await viaRouter("/auth/sessions/current", {
      method: "DELETE",
      headers: { cookie: `herald_session=${session.token}`, origin: storage.env.PUBLIC_BASE_URL! },
    });
    expect(res.status, await res.clone().text()).toBe(204);
    expect(res.headers.get("set-cookie")).toMatch(/^herald_session=; .*Max-Age=0/i);
  });

  it("streams a request body to the group Worker (a media upload) without reading it first", async () => {
    const owner = await newUser();
    const workspaceId = await newWorkspace(owner);
    const form = new Response(uploadForm({ workspaceId, bytes: fixture("image-40x30.png"), filename: "streamed.png" }));
    const bytes = new Uint8Array(await form.arrayBuffer());
    // The last chunk is held back until the media Worker has the request: a gateway that read the whole body
    // before forwarding would wait for ever (and the test time out).
    let reached!: () => void;
    const workerHasRequest = new Promise<void>((resolve) => (reached = resolve));
    onReceive = (group) => group === "media" && reached();
    const half = Math.floor(bytes.length / 2);
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (step === 0) controller.enqueue(bytes.slice(0, half));
        else if (step === 1) {
          await workerHasRequest;
          controller.enqueue(bytes.slice(half));
        } else controller.close();
        step++;
      },
    });
    try {
      const res = await viaRouter("/media", {
        method: "POST",
        body,
        duplex: "half",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": form.headers.get("content-type")! },
      } as RequestInit);
      expect(res.status, await res.clone().text()).toBe(201);
      const item = await res.json();
      expect(item).toMatchObject({ workspace_id: workspaceId, size: fixture("image-40x30.png").length });
    } finally {
      onReceive = () => {};
    }
  });

  it("answers 502 bad-gateway when a group's Worker cannot be reached", async () => {
    const res = await viaRouter("/auth/me", {}, routerEnv("auth"));
    expect(res.status).toBe(502);
    const body = (await res.json()) as { type: string; $schema: string };
    expect(body.type).toMatch(/\/problems\/bad-gateway$/);
    expect(body.$schema).toMatch(/\/api\/v1\/schemas\/Problem\.json$/);
  });
});

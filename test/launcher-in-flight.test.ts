import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomText } from "../lib/ids";
import { freePort } from "../local/services/ports";
import { descendants, sleep } from "../local/services/processes";
import { cloneInto, removeLinkedData } from "./helpers/clone";
import { sampleDocument } from "./image-editor-fixtures";

/**
 * Issue 23, as a new user met it: `npm start` with an AI key set and a model whose host name does not resolve
 * (`.invalid` never does, RFC 2606). Two things went wrong at once and each has a test here, against a real
 * `npm start` (they are about workerd and wrangler dev, which only it runs):
 *
 * - the build consumer logged `Uncaught Error: internal error`: workerd fails a fetch that carries a body to a
 *   name that does not resolve twice, the second time outside any promise the Worker holds (lib/builds/model.ts);
 * - ordinary requests in flight answered `503 Your worker restarted mid-request`: wrangler dev restarted the
 *   Workers because a source file in the checkout changed (local/services/dev-bundles.ts).
 *
 * It runs from a clone of the working tree, so that the edit it makes reaches no one else's server.
 */
describe("npm start while a build's model cannot be reached", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "herald-in-flight-"));
  // Postgres runs as the OS user `postgres` when we are root: it must be able to enter the folder.
  fs.chmodSync(root, 0o755);
  const clone = path.join(root, "herald");
  const dataDir = path.join(root, "data");
  const token = `hld_${randomText(40)}`;
  let child: ChildProcess | undefined;
  let output = "";
  let api = "";
  let workspaceId = "";
  let accountId = "";

  beforeAll(async () => {
    cloneInto(clone);
    const ports = {
      PORT: await freePort(),
      CONSUMERS_PORT: await freePort(),
      PG_PORT: await freePort(),
      WS_RELAY_PORT: await freePort(),
      SQS_PORT: await freePort(),
    };
    child = spawn("npm", ["start", "--silent"], {
      cwd: clone,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        BOOTSTRAP_ADMIN_EMAIL: `in-flight-${randomText(6)}@example.test`,
        BOOTSTRAP_ADMIN_TOKEN: token,
        AI_API_KEY: "sk-test-no-route-to-the-model",
        AI_BASE_URL: "https://model.herald-test.invalid/v1",
      },
    });
    api = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const match = /^Herald API listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output);
        if (match) resolve(match[1]);
      };
      child!.stdout!.on("data", onData);
      child!.stderr!.on("data", onData);
      child!.on("exit", (code) => reject(new Error(`npm start exited (${code}) before listening:\n${output}`)));
      setTimeout(() => reject(new Error(`not listening after 120 s:\n${output}`)), 120_000).unref();
    });
    const workspace = await call("POST", "/workspaces", { name: "No route to the model" });
    expect(workspace.status, workspace.text).toBe(201);
    workspaceId = workspace.body.id;
    const account = await call("POST", "/accounts", { workspace_id: workspaceId, platform: "webhook", url: "http://127.0.0.1:9/hook" });
    expect(account.status, account.text).toBe(201);
    accountId = account.body.id;
  }, 180_000);

  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      // Ctrl-C to the launcher's group, as a terminal sends it; whatever is left after its own deadline is killed.
      const started = descendants(child.pid);
      const exited = new Promise((resolve) => child!.on("exit", resolve));
      try {
        process.kill(-child.pid, "SIGINT");
      } catch {}
      await Promise.race([exited, sleep(40_000)]);
      for (const p of started)
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {}
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }
    removeLinkedData(path.join(dataDir, "pg"), root);
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }, 60_000);

  async function call(method: string, route: string, body?: unknown) {
    const res = await fetch(`${api}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get("content-type") ?? "", text, body: text ? JSON.parse(text) : null };
  }

  const startBuild = async (idea: string) => {
    const res = await call("POST", "/publication-builds", {
      workspace_id: workspaceId,
      idea,
      sources: [{ kind: "text", text: "Herald plans every destination at once." }],
      destination_account_ids: [accountId],
    });
    expect(res.status, res.text).toBe(202);
    return res.body.id as string;
  };

  async function finished(buildId: string) {
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(250)) {
      const res = await call("GET", `/publication-builds/${buildId}`);
      if (res.body.state === "completed" || res.body.state === "failed") return res.body;
    }
    throw new Error(`build ${buildId} did not finish within 60 s:\n${output}`);
  }

  const logs = (name: string) => fs.readFileSync(path.join(dataDir, "logs", name), "utf8");

  it("a build whose model host does not resolve is written by the planner alone, says why, and nothing is thrown uncaught", { timeout: 120_000 }, async () => {
    const build = await finished(await startBuild("We launched."));
    // docs/guides/builds-and-discovery.md: a model call that fails leaves the planner at work, with a review flag saying so.
    expect(build.state).toBe("completed");
    expect(build.result.direction.route).toBe("planner");
    expect(build.result.review_flags[0]).toMatchObject({ field: "model", message: expect.stringContaining("could not be reached") });
    // Discovery calls the same model from the API's Worker: it falls back to the ranker (issue 26), no 502.
    const discovered = await call("POST", "/publication-opportunities/discover", { workspace_id: workspaceId });
    expect(discovered.status, discovered.text).toBe(200);
    expect(discovered.body.model).toBe("herald-signal-ranker");
    // The consumer did look the name up (and workerd says it failed), but nothing was left uncaught.
    expect(logs("consumers.log")).toContain("model.herald-test.invalid");
    expect(logs("consumers.log")).not.toMatch(/Uncaught/);
    expect(logs("api.log")).not.toMatch(/Uncaught/);
  });

  it("requests in flight while a source file changes and a failing build runs answer as they should, not 503", { timeout: 120_000 }, async () => {
    const design = await call("POST", "/image-editor/designs", { workspace_id: workspaceId, document: sampleDocument() });
    expect(design.status, design.text).toBe(201);
    const building = finished(await startBuild("We launched again."));

    // Both requests reach the Worker and wait there for the rest of their bodies (every JSON body is read whole
    // before a route runs: lib/http/body-gate.ts), so they are in flight for as long as this test wants.
    const commit = halfSent("POST", "/publication-builds/%252F/commit", "{}");
    const put = halfSent(
      "PUT",
      `/image-editor/designs/${design.body.id}`,
      JSON.stringify({ expected_revision: design.body.revision, document: sampleDocument() }),
    );
    await sleep(1500);

    // A file every Worker bundles changes in the checkout (another person's edit, `npm ci`, a `git pull`).
    const before = output.length;
    fs.appendFileSync(path.join(clone, "lib/http/context.ts"), "\n// edited while npm start serves\n");
    // A wrangler dev watching its sources would rebuild and restart within seconds; give it ample time to.
    for (const until = Date.now() + 20_000; Date.now() < until && !/Local server updated and ready/.test(output.slice(before)); ) await sleep(250);

    commit.finish();
    put.finish();
    const [committed, saved] = await Promise.all([commit.response, put.response]);
    // `%252F` is an id like any other that names no build: 404 problem+json.
    expect(committed.status, committed.text).toBe(404);
    expect(committed.type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(committed.text).type).toMatch(/\/not-found$/);
    expect(saved.status, saved.text).toBe(200);
    expect(JSON.parse(saved.text).revision).toBe(design.body.revision + 1);
    expect(output.slice(before)).not.toMatch(/Reloading local server/);
    expect((await building).state).toBe("completed");
  });

  /** A request whose body is sent but for its last byte until `finish()`: it stays in the Worker meanwhile. */
  function halfSent(method: string, route: string, body: string) {
    const bytes = Buffer.from(body);
    const req = http.request(`${api}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": bytes.length },
    });
    const response = new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
      req.on("response", (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), text }));
      });
      req.on("error", reject);
    });
    req.write(bytes.subarray(0, -1));
    return { response, finish: () => req.end(bytes.subarray(-1)) };
  }
});

import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { analyticsCollectionRuns, apiTokens, outboxJobs } from "../db/schema";
import { hashToken } from "../lib/auth/tokens";
import { openDb, type Database } from "../lib/db/client";
import { newId, randomText } from "../lib/ids";
import { freePort, portIsFree } from "../local/services/ports";
import { descendants, listProcesses, sleep, type ProcInfo } from "../local/services/processes";
import { REPO_ROOT } from "../local/services/wrangler";
import { cloneInto, removeLinkedData } from "./helpers/clone";
import { startWsRelay } from "../local/services/ws-relay";
import { startClientAddressRelay } from "../local/services/client-address-relay";

/**
 * `npm start` as a person runs it, in a process group of its own (a terminal job), stopped with SIGINT
 * to the group (Ctrl-C). Everything it starts must be gone afterwards, its
 * data must survive a restart, and a job must flow API → outbox → SQS → consumer through the stack.
 */
describe("npm start (local/start.ts)", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "herald-launcher-"));
  // Postgres runs as the OS user `postgres` when we are root: it must be able to enter the folder.
  fs.chmodSync(root, 0o755);
  const dataDir = path.join(root, "data");
  const token = `hld_${randomText(40)}`;
  const email = `launcher-${randomText(6)}@example.test`;
  let ports: Record<string, number>;
  let launcher: { child: ChildProcess; output: () => string; exited: Promise<number | null> } | undefined;

  function killLauncher(): void {
    if (launcher && launcher.child.exitCode === null) {
      for (const p of descendants(launcher.child.pid!))
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {}
      try {
        process.kill(-launcher.child.pid!, "SIGKILL");
      } catch {}
    }
  }

  afterAll(async () => {
    killLauncher();
    removeLinkedData(path.join(dataDir, "pg"), root);
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function start(opts: { cwd?: string; dataDir?: string | null; env?: Record<string, string> } = {}): Promise<{ url: string; seconds: number }> {
    const started = Date.now();
    const child = spawn("npm", ["start", "--silent"], {
      cwd: opts.cwd ?? REPO_ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        // null: the default (.data in the clone), as a person starting it for the first time.
        DATA_DIR: opts.dataDir === null ? "" : (opts.dataDir ?? dataDir),
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        BOOTSTRAP_ADMIN_EMAIL: email,
        BOOTSTRAP_ADMIN_TOKEN: token,
        ...opts.env,
      },
    });
    let output = "";
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    launcher = { child, output: () => output, exited };
    const listening = new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const match = /^Herald API listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output);
        if (match) resolve(match[1]);
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.on("exit", (code) => reject(new Error(`launcher exited (${code}) before listening:\n${output}`)));
      // A Worker per group bundles each of its 16 Workers at start (local/services/dev-bundles.ts): 55-100 s measured
      // on this 2-core machine (the default, one Worker for every group, about 30 s).
      const limit = opts.env?.HERALD_GROUP_WORKERS === "each" ? 180 : 60;
      setTimeout(() => reject(new Error(`not listening after ${limit} s:\n${output}`)), limit * 1000).unref();
    });
    const url = await listening;
    return { url, seconds: (Date.now() - started) / 1000 };
  }

  /** Ctrl-C: SIGINT to the launcher's whole process group, as a terminal sends it. */
  async function stopAndCheckNothingIsLeft(data = dataDir): Promise<void> {
    const { child, exited, output } = launcher!;
    const started: ProcInfo[] = descendants(child.pid!);
    expect(
      started.some((p) => /workerd/.test(p.cmdline)),
      "workerd was running",
    ).toBe(true);
    expect(
      started.some((p) => /postgres/.test(p.cmdline)),
      "postgres was running",
    ).toBe(true);
    process.kill(-child.pid!, "SIGINT");
    // Longer than the launcher's own 30 s deadline, so a stop that hangs shows which part it waited for.
    const code = await Promise.race([exited, sleep(40_000).then(() => "timeout" as const)]);
    const timings = () =>
      fs
        .readFileSync(path.join(data, "logs", "launcher.log"), "utf8")
        .split("\n")
        .slice(-20)
        .join("\n");
    expect(code, `${output()}\n${timings()}`).not.toBe("timeout");
    expect(output(), timings()).toContain("Herald stopped.");
    // Give the kernel a moment to reap what was just killed.
    let left: ProcInfo[] = [];
    for (let i = 0; i < 40; i++) {
      const alive = new Set(listProcesses().map((p) => p.pid));
      left = [...started.filter((p) => alive.has(p.pid)), ...listProcesses().filter((p) => p.cmdline.includes(data))];
      if (left.length === 0) break;
      await sleep(100);
    }
    expect(left.map((p) => `${p.pid} ${p.cmdline}`)).toEqual([]);
    for (const [name, port] of Object.entries(ports)) expect(await portIsFree(port), `${name} ${port} is free again`).toBe(true);
  }

  /** The launcher's own database, through its relay, as the Workers reach it. */
  async function withLauncherDb(fn: (db: Database) => Promise<void>, data = dataDir): Promise<void> {
    const password = fs.readFileSync(path.join(data, "postgres-password"), "utf8").trim();
    const { db, close } = openDb({
      DATABASE_URL: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${ports.PG_PORT}/herald`,
      NEON_WS_PROXY: `127.0.0.1:${ports.WS_RELAY_PORT}/v2`,
    });
    try {
      await fn(db);
    } finally {
      await close();
    }
  }

  const call = async (url: string, method: string, body?: unknown) => {
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };

  it("starts, stops on Ctrl-C leaving nothing behind, keeps its data, and runs jobs", { timeout: 180_000 }, async () => {
    ports = {
      PORT: await freePort(),
      API_WORKER_PORT: await freePort(),
      CONSUMERS_PORT: await freePort(),
      PG_PORT: await freePort(),
      WS_RELAY_PORT: await freePort(),
      SQS_PORT: await freePort(),
    };

    // First start: a fresh DATA_DIR.
    const first = await start();
    console.log(`launcher: listening after ${first.seconds.toFixed(1)} s (fresh DATA_DIR)`);
    expect(first.url).toBe(`http://127.0.0.1:${ports.PORT}`);
    expect(first.seconds).toBeLessThan(60);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    const me = await call(`${first.url}/auth/me`, "GET");
    expect(me.status, me.text).toBe(200);
    expect(me.body.email).toBe(email);
    expect(me.body.is_admin).toBe(true);
    const created = await call(`${first.url}/workspaces`, "POST", { name: "Launcher test" });
    expect(created.status, created.text).toBe(201);
    const workspaceId: string = created.body.id;
    // The generated instance key and Postgres password are kept, readable by their owner only; no
    // bootstrap token file when one is given.
    expect(fs.statSync(path.join(dataDir, "instance-secret-key")).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dataDir, "postgres-password")).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(dataDir, "bootstrap-token"))).toBe(false);
    expect(launcher!.output()).not.toContain(token);

    // A job that SQS had accepted when the launcher stopped: the in-memory local SQS forgets it, so the
    // next start must send it again (local/services/requeue.ts). Simulated: marked sent, never queued.
    const lostRunId = newId("arun");
    const lostJobId = newId("job");
    await withLauncherDb(async (db) => {
      await db.insert(outboxJobs).values({ id: lostJobId, kind: "analytics.refresh", workspaceId, payload: { run_id: lostRunId }, sentAt: new Date() });
      await db
        .insert(analyticsCollectionRuns)
        .values({ id: lostRunId, workspaceId, jobId: lostJobId, status: "queued", accountsQueued: 0, requestedBy: me.body.id });
    });

    // An instance setting saved now waits for a restart (SPEC 4.11); the settings in force are read at start.
    const saved = await call(`${first.url}/admin/instance-settings`, "PUT", { settings: [{ key: "media_max_bytes", value: "7340032" }] });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.settings.find((s: { key: string }) => s.key === "media_max_bytes")).toMatchObject({
      value: "7340032",
      source: "database",
      requires_restart: true,
    });

    await stopAndCheckNothingIsLeft();

    // Second start: same DATA_DIR, the workspace is still there.
    const second = await start();
    console.log(`launcher: listening after ${second.seconds.toFixed(1)} s (restart)`);
    expect(second.seconds).toBeLessThan(60);
    const listed = await call(`${second.url}/workspaces`, "GET");
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.map((w: { id: string }) => w.id)).toContain(workspaceId);
    const settings = await call(`${second.url}/admin/instance-settings`, "GET");
    expect(settings.body.settings.find((s: { key: string }) => s.key === "media_max_bytes")).toMatchObject({
      value: "7340032",
      source: "database",
      requires_restart: false,
    });
    expect(settings.body.requires_restart).toBe(false);

    // A job end to end: the API records it in the outbox, it goes to SQS, the pumped consumer completes it.
    const queuedAt = Date.now();
    const refresh = await call(`${second.url}/analytics/refresh`, "POST", { workspace_id: workspaceId });
    expect(refresh.status, refresh.text).toBe(202);
    let statuses: string[] = [];
    await withLauncherDb(async (db) => {
      while (Date.now() - queuedAt < 30_000) {
        const runs = await db.select().from(analyticsCollectionRuns).where(eq(analyticsCollectionRuns.workspaceId, workspaceId));
        statuses = runs.map((r) => r.status);
        if (runs.length === 2 && statuses.every((s) => s === "completed")) break;
        await sleep(200);
      }
    });
    // Both: the one queued through the API now, and the one lost with the previous run's SQS.
    expect(statuses, launcher!.output()).toEqual(["completed", "completed"]);
    expect(launcher!.output()).toContain("Re-queued 1 job");
    console.log(`launcher: analytics jobs completed ${((Date.now() - queuedAt) / 1000).toFixed(1)} s after the API queued one`);

    await stopAndCheckNothingIsLeft();
  });

  it("starts as root from a clone inside a folder only root may enter, with its own Postgres password and every group in a Worker of its own; a revoked bootstrap token stays revoked after a restart", {
    timeout: 300_000,
  }, async () => {
    ports = {
      PORT: await freePort(),
      API_WORKER_PORT: await freePort(),
      CONSUMERS_PORT: await freePort(),
      PG_PORT: await freePort(),
      WS_RELAY_PORT: await freePort(),
      SQS_PORT: await freePort(),
    };
    // mktemp -d: mode 0700. As root, the OS user Postgres runs as can enter neither the clone's
    // node_modules (initdb) nor its .data. (As an ordinary user this is the plain case.)
    const outer = fs.mkdtempSync(path.join(os.tmpdir(), "herald-private-"));
    expect(fs.statSync(outer).mode & 0o777).toBe(0o700);
    const clone = path.join(outer, "herald");
    const data = path.join(clone, ".data");
    try {
      cloneInto(clone);
      // Each group's Worker behind the gateway, as deployed (the default start runs them all in one Worker).
      const { url } = await start({ cwd: clone, dataDir: null, env: { HERALD_GROUP_WORKERS: "each" } });
      const me = await call(`${url}/auth/me`, "GET");
      expect(me.status, me.text).toBe(200);
      expect(me.body.email).toBe(email);
      const created = await call(`${url}/workspaces`, "POST", { name: "Through the gateway" });
      expect(created.status, created.text).toBe(201);
      const doc = await call(`${url}/openapi.json`, "GET");
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/auth/me", "/workspaces", "/media", "/publications"]));

      // The superuser password is this DATA_DIR's own (0600), and the old fixed one is refused.
      expect(fs.statSync(path.join(data, "postgres-password")).mode & 0o777).toBe(0o600);
      await withLauncherDb(async (db) => {
        expect((await db.execute(sql`select 1 as one`)).rows).toEqual([{ one: 1 }]);
      }, data);
      const fixed = openDb({
        DATABASE_URL: `postgres://postgres:herald-local@127.0.0.1:${ports.PG_PORT}/herald`,
        NEON_WS_PROXY: `127.0.0.1:${ports.WS_RELAY_PORT}/v2`,
      });
      const refused = await fixed.db.execute(sql`select 1`).then(
        () => undefined,
        (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
      );
      expect(refused).toMatch(/password authentication failed/);
      await fixed.close().catch(() => {});

      // The bootstrap token leaked: its owner revokes it. It must stay revoked at the next start.
      let tokenId = "";
      await withLauncherDb(async (db) => {
        [{ id: tokenId }] = await db
          .select({ id: apiTokens.id })
          .from(apiTokens)
          .where(eq(apiTokens.tokenHash, await hashToken(token)));
      }, data);
      expect((await call(`${url}/auth/tokens/${tokenId}`, "DELETE")).status).toBe(204);
      expect((await call(`${url}/auth/me`, "GET")).status).toBe(401);
      await stopAndCheckNothingIsLeft(data);
      // A budget of 5 requests a minute per client address (and per person), counted in the isolate beside the bindings.
      const again = await start({ cwd: clone, dataDir: null, env: { RATE_LIMIT_PER_MINUTE: "5" } });
      expect((await call(`${again.url}/auth/me`, "GET")).status).toBe(401);
      expect(launcher!.output()).toMatch(/token was revoked and stays revoked/);
      // Each request below claims another client address; the relay on PORT replaces it with the socket's, as
      // Cloudflare's edge does, so they all spend the one budget of 127.0.0.1 (the failed request above included).
      const statuses: number[] = [];
      for (let i = 1; i <= 8; i++) {
        const res = await fetch(`${again.url}/auth/me`, { headers: { "cf-connecting-ip": `198.51.100.${i}` } });
        await res.body?.cancel();
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 401).length, statuses.join(" ")).toBeLessThanOrEqual(4);
      expect(statuses.at(-1), statuses.join(" ")).toBe(429);

      await stopAndCheckNothingIsLeft(data);
      // Its logs hold neither the password nor the administrator's token.
      const password = fs.readFileSync(path.join(data, "postgres-password"), "utf8").trim();
      for (const file of fs.readdirSync(path.join(data, "logs"))) {
        const text = fs.readFileSync(path.join(data, "logs", file), "utf8");
        expect(text, file).not.toContain(password);
        expect(text, file).not.toContain(token);
      }
    } finally {
      killLauncher();
      removeLinkedData(path.join(data, "pg"), outer);
      fs.rmSync(outer, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    }
  });
});

describe("the client-address relay on PORT", () => {
  it("replaces a client-sent cf-connecting-ip with the socket's address and passes everything else through, streaming", async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const target = http.createServer((req, res) => {
      seen.push(req.headers);
      // As a Worker that refuses a request before reading its body (401, 413): the answer comes first.
      if (req.url === "/early") return void res.writeHead(401, { "content-type": "application/problem+json" }).end('{"status":401}');
      res.writeHead(207, { "x-answer": "kept", "content-type": "text/plain" });
      req.pipe(res);
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const targetPort = (target.address() as net.AddressInfo).port;
    const relay = await startClientAddressRelay({ port: await freePort(), target: { host: "127.0.0.1", port: targetPort } });
    try {
      const body = "x".repeat(3_000_000);
      const res = await fetch(`http://127.0.0.1:${relay.port}/media?a=1`, {
        method: "POST",
        headers: { "cf-connecting-ip": "203.0.113.9", "x-custom": "kept" },
        body,
      });
      expect(res.status).toBe(207);
      expect(res.headers.get("x-answer")).toBe("kept");
      expect((await res.text()).length).toBe(body.length);
      expect(seen[0]["cf-connecting-ip"]).toBe("127.0.0.1");
      expect(seen[0]["x-custom"]).toBe("kept");
      expect(seen[0].host).toBe(`127.0.0.1:${relay.port}`);
      // Answered before the body was read: the client still finishes sending and gets the answer whole.
      const early = await fetch(`http://127.0.0.1:${relay.port}/early`, { method: "POST", body });
      expect(early.status).toBe(401);
      expect(await early.json()).toEqual({ status: 401 });
      // Nothing behind it: a problem+json 502, not a hung or reset connection.
      await new Promise<void>((resolve) => target.close(() => resolve()));
      target.closeAllConnections();
      const down = await fetch(`http://127.0.0.1:${relay.port}/healthz`, { headers: { connection: "close" } });
      expect(down.status).toBe(502);
      expect(down.headers.get("content-type")).toBe("application/problem+json");
    } finally {
      await relay.close();
      target.close();
    }
  });
});

describe("the local WebSocket relay", () => {
  it("refuses browser origins that are not Herald's own, and serves the database drivers (no Origin)", async () => {
    // Something to relay to: a TCP server that answers anything with "pong".
    const target = net.createServer((socket) => socket.on("data", () => socket.write("pong")));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const address = `127.0.0.1:${(target.address() as net.AddressInfo).port}`;
    const relay = await startWsRelay({ port: await freePort(), allowed: [address], origins: ["http://localhost:8787"] });
    const url = `ws://127.0.0.1:${relay.port}/v2?address=${address}`;
    const attempt = (origin?: string) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(url, origin ? { origin } : {});
        ws.on("open", () => ws.send("ping"));
        ws.on("message", (data) => (resolve(`answered ${data}`), ws.close()));
        ws.on("unexpected-response", (_req, res) => resolve(`refused ${res.statusCode}`));
        ws.on("error", (error) => resolve(`error ${error.message}`));
      });
    try {
      expect(await attempt()).toBe("answered pong");
      expect(await attempt("http://localhost:8787")).toBe("answered pong");
      expect(await attempt("https://evil.example")).toBe("refused 401");
      expect(await attempt("http://localhost:3000")).toBe("refused 401");
      expect(await attempt("null")).toBe("refused 401");
    } finally {
      await relay.close();
      target.close();
    }
  });
});

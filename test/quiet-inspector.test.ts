import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { freePort } from "../local/services/ports";
import { startHerald } from "../local/services/herald-process";
import { quietInspector } from "../local/services/quiet-inspector";
import { sleep } from "../local/services/processes";

/** A DevTools client of wrangler's inspector proxy: the messages it receives, and how it was closed. */
async function attach(port: number) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  const methods: string[] = [];
  const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
  ws.on("message", (data) => methods.push(String(JSON.parse(data.toString()).method)));
  ws.on("error", () => {});
  await Promise.race([new Promise((resolve) => ws.on("open", resolve)), closed]);
  // A refused client is accepted, then closed at once with 1013.
  const opened = await Promise.race([closed.then(() => false), sleep(500).then(() => true)]);
  return { ws, methods, closed, opened };
}

/** Another client is refused once the launcher's holds the inspector (the proxy allows one). */
async function refusedClient(port: number) {
  for (let i = 0; i < 20; i++) {
    const other = await attach(port);
    if (!other.opened) return other.closed;
    other.ws.terminate();
    await other.closed;
    await sleep(250);
  }
  return "never refused";
}

/** Waits until the proxy has stopped sending (the last request's events arrive after its response). */
async function settled(methods: string[]) {
  let seen = -1;
  while (seen !== methods.length) {
    seen = methods.length;
    await sleep(300);
  }
}

/** The Network events a client receives for what `act` does. */
async function networkEventsOf(client: Awaited<ReturnType<typeof attach>>, act: () => Promise<unknown>) {
  await settled(client.methods);
  const before = client.methods.length;
  await act();
  await settled(client.methods);
  return client.methods.slice(before).filter((m) => m.startsWith("Network."));
}

/**
 * Under `wrangler dev`, every outbound fetch of a Worker sends inspector Network events through wrangler's
 * proxy (which is what made a database statement cost 1.5–2.7 ms of CPU). The launcher holds the inspector and
 * turns them off, unless HERALD_DEBUGGER=1 leaves it free for a debugger.
 */
describe("the launcher's inspector client (local/services/quiet-inspector.ts)", () => {
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it("with HERALD_DEBUGGER=1 a debugger attaches and sees each database fetch; quietInspector turns that off and holds the inspector until stopped", {
    timeout: 180_000,
  }, async () => {
    const port = await freePort();
    const herald = await startHerald({ INSPECTOR_PORT: String(port), HERALD_DEBUGGER: "1" });
    stops.push(herald.stop);
    // An unknown token costs one database lookup: one outbound fetch from the Worker.
    const lookup = async () =>
      expect((await fetch(`${herald.url}/auth/me`, { headers: { authorization: "Bearer hld_unknown0000000000000000000000000000" } })).status).toBe(401);

    const debuggerClient = await attach(port);
    expect(debuggerClient.opened).toBe(true);
    expect(await networkEventsOf(debuggerClient, lookup)).toContain("Network.requestWillBeSent");
    debuggerClient.ws.terminate();
    await debuggerClient.closed;

    const quiet = quietInspector(port, () => {});
    expect(await quiet.ready).toBe(true);
    expect(await refusedClient(port)).toBe(1013);
    quiet.stop();
    await sleep(500);
    const again = await attach(port);
    expect(again.opened).toBe(true);
    // It had turned the Network domain off: a lookup now sends no Network events.
    expect(await networkEventsOf(again, lookup)).toEqual([]);
    again.ws.terminate();
  });

  it("npm start holds the inspector by default", { timeout: 180_000 }, async () => {
    const port = await freePort();
    const herald = await startHerald({ INSPECTOR_PORT: String(port) });
    stops.push(herald.stop);
    expect((await fetch(`${herald.url}/healthz`)).status).toBe(200);
    const log = path.join(herald.dataDir, "logs", "launcher.log");
    for (let i = 0; i < 40 && !/API inspector (held|not held)/.test(fs.readFileSync(log, "utf8")); i++) await sleep(250);
    expect(fs.readFileSync(log, "utf8")).toMatch(/API inspector held, its network log off/);
    expect(await refusedClient(port)).toBe(1013);
  });
});

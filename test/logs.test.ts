import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { eq } from "drizzle-orm";
import { Context } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deliveryAttempts } from "../db/schema";
import { drainQueue, type ConsumerDefinition } from "../lib/jobs/consumer";
import { queueUrl, sqsClient } from "../lib/jobs/sqs";
import type { Env } from "../lib/env";
import { createGroupApp, createWorkerApp } from "../lib/http/app";
import { defer } from "../lib/http/context";
import { randomText } from "../lib/ids";
import { forwardOutput, REPO_ROOT } from "../local/services/wrangler";
import { ensureQueues } from "../local/services/sqs";
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";

/**
 * Logs carry ids, codes and sizes: distinctive strings planted in content, e-mail addresses, webhook
 * URLs, query strings and error messages must never reach them. Everything written to the console (what
 * workerd forwards to wrangler's log) is captured while real requests and jobs run.
 */
const CANARY = `canary${randomText(10)}`;
const planted = [CANARY, `${CANARY}@example.test`, `hooks-${CANARY}.example`, `q-${CANARY}`];

let captured: string[] = [];
beforeEach(() => {
  captured = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void captured.push(args.map(String).join(" ")));
  }
});
afterEach(() => vi.restoreAllMocks());

function expectNothingPlanted(lines: string[]) {
  const text = lines.join("\n");
  for (const secret of planted) expect(text, `logs contain ${secret}`).not.toContain(secret);
  expect(text).not.toMatch(/\n\s+at /); // no stack trace
}

describe("logs", () => {
  it("an unhandled error logs the request id, route and error class: no message, stack, path or query", async () => {
    const user = await newUser();
    const group = createGroupApp();
    group.get("/boom/:thing", () => {
      throw new Error(`failed for ${CANARY}@example.test at https://hooks-${CANARY}.example/x`);
    });
    const app = createWorkerApp([group], { title: "test" });
    const res = await app.request(`/boom/${CANARY}?email=${CANARY}@example.test&q=q-${CANARY}`, { headers: { authorization: `Bearer ${user.token}` } }, env);
    expect(res.status).toBe(500);
    expect(captured.length).toBe(1);
    expect(JSON.parse(captured[0])).toMatchObject({
      level: "error",
      msg: "unhandled error",
      request_id: res.headers.get("x-request-id"),
      route: "/boom/:thing",
      error: "Error",
    });
    expectNothingPlanted(captured);
  });

  it("failed deferred work and failed jobs log codes, not messages", async () => {
    const c = new Context(new Request("http://herald.test/"));
    c.set("requestId", "req-1");
    defer(c, Promise.reject(Object.assign(new Error(`could not reach https://hooks-${CANARY}.example/?q=q-${CANARY}`), { code: "ECONNREFUSED" })));
    await new Promise((r) => setTimeout(r, 10));
    expect(JSON.parse(captured[0])).toMatchObject({ msg: "deferred work failed", error: "Error", code: "ECONNREFUSED" });

    const e = { ...env, ...(await ensureQueues(env, `logs-${Date.now()}-`)) } as Env;
    const failing: ConsumerDefinition<"analytics.refresh"> = {
      kind: "analytics.refresh",
      async handle({ job }) {
        throw new Error(`provider refused "${job.payload.account_id}" for ${CANARY}@example.test`);
      },
    };
    const sqs = sqsClient(e);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl(e, "analytics.refresh"),
        MessageBody: JSON.stringify({ job_id: `job_${CANARY}`.slice(0, 30), kind: "analytics.refresh", workspace_id: null, payload: { account_id: CANARY } }),
      }),
    );
    sqs.destroy();
    expect((await drainQueue(e, failing, { waitSeconds: 0, budgetMs: 2000, retryDelay: () => 900 })).failed).toBe(1);
    const failed = captured.map((l) => JSON.parse(l)).find((l) => l.msg === "job failed");
    expect(failed).toMatchObject({ kind: "analytics.refresh", attempt: 1, error: "Error" });
    // The job id is an id: kept (here it contains the canary, so it is checked apart from the rest).
    expectNothingPlanted(captured.map((l) => l.replaceAll(`job_${CANARY}`.slice(0, 30), "job_id")));
  });

  it("a publication to a failing webhook with planted content, e-mail and URL leaves none of them in the logs", { timeout: 20_000 }, async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    // A closed port: delivery fails, the publication records why.
    const hook = await newAccount(ws, owner.id, "webhook", {
      url: `http://127.0.0.1:9/hooks-${CANARY}.example/in?token=q-${CANARY}`,
      credentials: { secret: `s-${CANARY}` },
    });
    const created = await api("POST", "/publications", {
      token: owner.token,
      json: {
        workspace_id: ws,
        title: `Title ${CANARY}`,
        source_text: `Write to ${CANARY}@example.test about ${CANARY}.`,
        destinations: [{ social_account_id: hook }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const res = await api("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: created.body.revision } });
    expect(res.status, res.text).toBe(202);
    // Until the first delivery attempt has failed (later ones are minutes away).
    const renditionId: string = res.body.renditions[0].id;
    const attempts = () => withDb((db) => db.select().from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, renditionId)));
    for (let i = 0; i < 100 && !(await attempts()).some((a) => a.outcome !== "in_flight"); i++) await runPipeline(created.body.id, { until: () => true });
    expect(["failed", "unknown"]).toContain((await attempts())[0].outcome);
    expectNothingPlanted(captured);
  });

  it("the launcher's copies of wrangler's output drop query strings", async () => {
    const stream = new PassThrough();
    const log = new PassThrough();
    const written: string[] = [];
    log.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
    const shown: string[] = [];
    forwardOutput(stream, log, "api", (line) => shown.push(line));
    stream.write(
      `[wrangler:info] GET /messages?q=q-${CANARY}&email=${CANARY}%40example.test 200 OK (3ms)\n[wrangler:info] POST /publications 201 Created (9ms)\n`,
    );
    stream.end(`GET /auth/me?token=q-${CANARY}`);
    await new Promise((r) => setImmediate(r));
    expect(shown).toEqual(["[api] [wrangler:info] GET /messages?… 200 OK (3ms)", "[api] [wrangler:info] POST /publications 201 Created (9ms)"]);
    expect(written.join("")).toContain("GET /auth/me?…");
    expectNothingPlanted([...shown, ...written]);
  });

  it("the Workers' code logs only through lib/log.ts (no console call elsewhere in lib/, functions/, queues/)", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith(".ts") && file !== path.join(REPO_ROOT, "lib", "log.ts")) {
          fs.readFileSync(file, "utf8")
            .split("\n")
            .forEach((line, i) => {
              // Calls only: lib/media/mp4.ts silences a library by swapping console.error, which logs nothing.
              if (/console\.(log|info|warn|error|debug|trace)\s*\(/.test(line)) offenders.push(`${path.relative(REPO_ROOT, file)}:${i + 1}`);
            });
        }
      }
    };
    for (const dir of ["lib", "functions", "queues"]) walk(path.join(REPO_ROOT, dir));
    expect(offenders).toEqual([]);
  });
});

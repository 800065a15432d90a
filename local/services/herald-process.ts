import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./ports";
import { stopProcessGroup } from "./processes";
import { REPO_ROOT } from "./wrangler";

/**
 * `npm start` in a throwaway DATA_DIR on free ports, for tests and benchmarks that need the whole product as
 * a person runs it (the Workers runtime, the page and the API on http://localhost:PORT). `stop()` ends the
 * process group and removes the data.
 */
export async function startHerald(env: Record<string, string> = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "herald-e2e-"));
  // Postgres runs as the OS user `postgres` when we are root: it must be able to enter the folder.
  fs.chmodSync(root, 0o755);
  const port = await freePort();
  const ports = {
    PORT: port,
    API_WORKER_PORT: await freePort(),
    CONSUMERS_PORT: await freePort(),
    PG_PORT: await freePort(),
    WS_RELAY_PORT: await freePort(),
    SQL_HTTP_PORT: await freePort(),
    SQS_PORT: await freePort(),
  };
  const child = spawn("npm", ["start", "--silent"], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DATA_DIR: path.join(root, "data"), ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), ...env },
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (/^Herald API listening on /m.test(output)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`npm start exited (${code}) before listening:\n${output}`)));
    setTimeout(() => reject(new Error(`npm start was not listening after 90 s:\n${output}`)), 90_000).unref();
  });
  return {
    /** The base URL a browser uses: PUBLIC_BASE_URL's default, so that localhost is the WebAuthn RP ID. */
    url: `http://localhost:${port}`,
    ports,
    dataDir: path.join(root, "data"),
    output: () => output,
    async stop() {
      await stopProcessGroup(child.pid, 10_000);
      const pg = path.join(root, "data", "pg");
      // As root the cluster may live elsewhere, linked from DATA_DIR/pg.
      const real = fs.existsSync(pg) ? fs.realpathSync(pg) : undefined;
      if (real && !real.startsWith(root + path.sep)) {
        fs.rmSync(real, { recursive: true, force: true });
        fs.rmSync(`${real}.owner`, { force: true });
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

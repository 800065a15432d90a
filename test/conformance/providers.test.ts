import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Env } from "../../lib/env";
import { ensureQueues } from "../../local/services/sqs";
import { env, newUser } from "../helpers/harness";
import { startMediaStorage, type MediaStorage } from "../helpers/media";
import { serveGateway, type ServedGateway } from "../helpers/serve-gateway";
import { CASES } from "./cases";
import type { SuiteContext } from "./driver";
import { DRIVERS } from "./drivers";

/**
 * The provider conformance suite (issue 28): the same cases (./cases.ts) for every provider (./drivers/),
 * through Herald's API and delivery pipeline against each platform's server: the real one where it runs
 * here, a stand-in written from the platform's API reference otherwise (see each driver). It prints a
 * provider × case table; CONFORMANCE_TABLE=1 also writes it to test/conformance/last-table.md.
 * CONFORMANCE_DRIVERS=discord,webhook runs only those providers.
 */

const only = process.env.CONFORMANCE_DRIVERS?.split(",").map((s) => s.trim());
const drivers = only ? DRIVERS.filter((d) => only.includes(d.platform)) : DRIVERS;

let storage: MediaStorage;
let served: ServedGateway;
const suite = {} as SuiteContext;
/** provider label → case name → "pass", "pass (note)", "n/a (reason)" or "FAIL". */
const table = new Map<string, Map<string, string>>();
const record = (label: string, name: string, verdict: string) => {
  if (!table.has(label)) table.set(label, new Map());
  table.get(label)!.set(name, verdict);
};

beforeAll(async () => {
  storage = await startMediaStorage();
  // Queues of the suite's own, so that only this file's consumer (with this env) delivers its publications.
  const queues = await ensureQueues(env, `conformance-${Date.now()}-`);
  served = await serveGateway({ ...storage.env, ...queues } as Env);
  const admin = await newUser({ isAdmin: true });
  Object.assign(suite, { env: served.env, baseUrl: served.url, adminToken: admin.token } satisfies SuiteContext);
}, 60_000);

afterAll(async () => {
  await served?.stop();
  await storage?.dispose();
  const text = renderTable();
  console.log(`\nProvider conformance\n\n${text}`);
  if (process.env.CONFORMANCE_TABLE === "1") fs.writeFileSync(path.join(import.meta.dirname, "last-table.md"), `${text}\n`);
});

function renderTable(): string {
  const names = CASES.map((c) => c.name);
  const rows = [...table].map(([label, verdicts]) => [label, ...names.map((n) => verdicts.get(n) ?? "not run")]);
  const header = ["provider", ...names];
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

describe.each(drivers)("$label", (driver) => {
  beforeAll(() => driver.start(suite), 120_000);
  afterAll(() => driver.stop());

  for (const c of CASES) {
    it(c.name, async (ctx) => {
      const reason = c.notApplicable?.(driver) ?? null;
      if (reason) {
        record(driver.label, c.name, `n/a (${reason})`);
        ctx.skip(reason);
        return;
      }
      record(driver.label, c.name, "FAIL");
      const note = await c.run(driver, suite);
      record(driver.label, c.name, note ? `pass (${note})` : "pass");
    }, 90_000);
  }
});

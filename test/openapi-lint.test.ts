import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../local/services/wrangler";
import { api } from "./helpers/harness";

/**
 * Two linters that no one here wrote read the document a generic tool reads: Redocly CLI with its recommended rules
 * (redocly.yaml) and Spectral with spectral:oas (.spectral.yaml). Every warning counts, not only errors.
 */
const run = promisify(execFile);
const bin = (name: string) => path.join(REPO_ROOT, "node_modules", ".bin", name);
let dir: string;
let file: string;

beforeAll(async () => {
  const res = await api("GET", "/openapi.json");
  expect(res.status).toBe(200);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "herald-openapi-lint-"));
  file = path.join(dir, "openapi.json");
  fs.writeFileSync(file, res.text);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A CLI's JSON report, whatever its exit code (both exit non-zero when they find something). */
async function report(command: string, args: string[]): Promise<string> {
  const env = { ...process.env, NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", SCARF_ANALYTICS: "false" };
  try {
    return (await run(command, args, { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    if (!stdout) throw new Error(`${command} failed without a report: ${stderr}`);
    return stdout;
  }
}

describe("the OpenAPI document passes two outside linters with no warning", () => {
  it("Redocly CLI lint (recommended)", async () => {
    const out = await report(bin("redocly"), ["lint", file, "--config", path.join(REPO_ROOT, "redocly.yaml"), "--format", "json"]);
    const { problems } = JSON.parse(out) as { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  }, 120_000);

  it("Spectral lint (spectral:oas)", async () => {
    const out = await report(bin("spectral"), ["lint", file, "--ruleset", path.join(REPO_ROOT, ".spectral.yaml"), "--format", "json", "--quiet"]);
    const results = JSON.parse(out || "[]") as { code: string; severity: number; message: string; path: string[] }[];
    expect(results.map((r) => `${r.severity} ${r.code} ${r.path.join(".")}: ${r.message}`)).toEqual([]);
  }, 120_000);
});

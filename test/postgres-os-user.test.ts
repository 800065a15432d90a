import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeOrphans } from "../local/services/postgres-os-user";

/**
 * As root, a DATA_DIR the `postgres` user cannot reach keeps its database under /var/lib/herald/postgres,
 * linked from DATA_DIR/pg. When that DATA_DIR is deleted (a clone removed, a temporary folder cleaned), a
 * later start removes the database it left behind, unless it is running or was made within the hour.
 */
describe("data folders of deleted DATA_DIRs (removeOrphans)", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "herald-orphans-"));
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "herald-owners-"));
  afterAll(() => {
    fs.rmSync(base, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  function plant(name: string, owner: string, opts: { linked?: boolean; ageMs?: number; pid?: number } = {}) {
    const target = path.join(base, name);
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, "PG_VERSION"), "18\n");
    if (opts.pid) fs.writeFileSync(path.join(target, "postmaster.pid"), `${opts.pid}\n${target}\n`);
    fs.writeFileSync(`${target}.owner`, owner + "\n");
    const when = new Date(Date.now() - (opts.ageMs ?? 2 * 3600_000));
    fs.utimesSync(`${target}.owner`, when, when);
    if (opts.linked) {
      fs.mkdirSync(path.dirname(owner), { recursive: true });
      fs.symlinkSync(target, owner);
    }
    return target;
  }

  it("removes only what no DATA_DIR links to, that is not running, and is older than an hour", async () => {
    const gone = plant("gone", path.join(elsewhere, "deleted-clone", ".data", "pg"));
    const kept = plant("kept", path.join(elsewhere, "clone", ".data", "pg"), { linked: true });
    const young = plant("young", path.join(elsewhere, "starting", ".data", "pg"), { ageMs: 60_000 });
    const relinked = plant("relinked", path.join(elsewhere, "moved", ".data", "pg"));
    fs.mkdirSync(path.join(elsewhere, "moved", ".data"), { recursive: true });
    fs.symlinkSync(path.join(base, "something-else"), path.join(elsewhere, "moved", ".data", "pg"));
    const sleeper = spawn("sleep", ["30"]);
    const running = plant("running", path.join(elsewhere, "running-clone", ".data", "pg"), { pid: sleeper.pid });
    const dead = plant("dead", path.join(elsewhere, "crashed", ".data", "pg"), { pid: 2 ** 22 + 12345 });
    try {
      expect(removeOrphans(base).sort()).toEqual([dead, gone, relinked].sort());
      for (const t of [gone, relinked, dead]) expect(fs.existsSync(t) || fs.existsSync(`${t}.owner`)).toBe(false);
      for (const t of [kept, young, running]) expect(fs.existsSync(path.join(t, "PG_VERSION"))).toBe(true);
    } finally {
      sleeper.kill();
    }
  });
});

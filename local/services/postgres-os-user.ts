import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Postgres refuses to run as root. As root, the embedded Postgres runs as the OS user `postgres`, which
 * cannot enter a folder only root may enter (a clone in /root, any `mktemp -d`): neither the binaries
 * under node_modules nor DATA_DIR/pg. So, as root only:
 *  - the binaries run from a root-owned, world-readable copy in a temporary folder when the user cannot
 *    run them in place (one copy per Postgres build, shared by every start and test run);
 *  - the data folder, when the user cannot reach it, lives under /var/lib/herald/postgres (or a temporary
 *    folder for throwaway clusters) and DATA_DIR/pg is a symbolic link to it.
 * Everything is checked by running a command as that user, not guessed from modes.
 */
export interface RunAs {
  uid: number;
  gid: number;
}

const USER = "postgres";

function idOf(flag: "-u" | "-g"): number | undefined {
  try {
    return Number(execFileSync("id", [flag, USER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    return undefined;
  }
}

/** The identity Postgres runs under: none (this user) unless we are root; then `postgres`, created if missing. */
export function postgresRunAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (idOf("-u") === undefined) {
    // A system account without a login or home, as distribution packages create it.
    spawnSync("groupadd", ["--system", USER], { stdio: "ignore" });
    spawnSync("useradd", ["--system", "--gid", USER, "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", USER], {
      stdio: "ignore",
    });
  }
  const uid = idOf("-u");
  const gid = idOf("-g");
  if (uid === undefined || gid === undefined) throw new Error(`running as root, Postgres needs an OS user "${USER}", and it could not be created (useradd)`);
  return { uid, gid };
}

/** Whether `runAs` can enter `dir` (every folder on the way must let it through). */
export function canEnter(runAs: RunAs, dir: string): boolean {
  return spawnSync("/bin/sh", ["-c", 'cd -- "$1"', "sh", dir], { ...runAs, cwd: "/", stdio: "ignore" }).status === 0;
}

const canRun = (runAs: RunAs, binary: string) => spawnSync(binary, ["--version"], { ...runAs, cwd: "/", stdio: "ignore" }).status === 0;

/** A folder root created and nobody else may change (so what runs from it is what we put there). */
function trusted(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === 0 && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Copy a tree so that everyone may read it (and run what its owner may run); symbolic links as they are. */
function copyReadable(from: string, to: string): void {
  fs.mkdirSync(to, { mode: 0o755 });
  fs.chmodSync(to, 0o755);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const [src, dst] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst);
    else if (entry.isDirectory()) copyReadable(src, dst);
    else {
      fs.copyFileSync(src, dst);
      const mode = fs.statSync(src).mode & 0o777;
      fs.chmodSync(dst, (mode | 0o444 | (mode & 0o100 ? 0o111 : 0)) & 0o755);
    }
  }
}

/** Temporary folders the `postgres` user may enter, best first. */
function temporaryBases(runAs: RunAs): string[] {
  return [...new Set([os.tmpdir(), "/tmp", "/var/tmp"])].filter((dir) => fs.existsSync(dir) && canEnter(runAs, dir));
}

/**
 * The folder holding bin/, lib/ and share/ of Postgres that `runAs` can run: `nativeDir` itself when it
 * can, or a copy (made once, atomically, so concurrent starts share it).
 */
export function runnableNativeDir(nativeDir: string, runAs: RunAs | undefined): string {
  if (!runAs || canRun(runAs, path.join(nativeDir, "bin", "postgres"))) return nativeDir;
  // The same build (wherever it is installed) shares one copy.
  const st = fs.statSync(path.join(nativeDir, "bin", "postgres"));
  const build = crypto
    .createHash("sha256")
    .update(`${st.size}:${st.mtimeMs}:${fs.readFileSync(path.join(nativeDir, "..", "package.json"), "utf8")}`)
    .digest("hex")
    .slice(0, 16);
  for (const base of temporaryBases(runAs)) {
    const target = path.join(base, `herald-postgres-${build}`);
    // A copy made while npm was still installing (its library links not yet made) never runs: replace it.
    if (trusted(target) && !canRun(runAs, path.join(target, "bin", "postgres"))) fs.rmSync(target, { recursive: true, force: true });
    if (!fs.existsSync(target)) {
      const staging = `${target}.${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
      try {
        copyReadable(nativeDir, staging);
        fs.renameSync(staging, target);
      } catch {
        // Another start made it first (or this base is read-only): use theirs, or try the next base.
        fs.rmSync(staging, { recursive: true, force: true });
      }
    }
    if (trusted(target) && canRun(runAs, path.join(target, "bin", "postgres"))) return target;
  }
  throw new Error(`the OS user "${USER}" cannot run Postgres from ${nativeDir}, and no temporary folder it can enter could hold a copy`);
}

/**
 * The folder Postgres keeps its data in for `dir`: `dir` itself when `runAs` can reach it (owned by
 * `runAs`), else a folder it can reach that `dir` links to. A link that is missing means `dir` was
 * removed (a reset): whatever its target held is removed too, so a new DATA_DIR starts empty.
 */
export function reachableDataDir(dir: string, runAs: RunAs | undefined, opts: { persistent: boolean }): string {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  if (!runAs) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }
  const link = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    const target = fs.existsSync(dir) ? fs.realpathSync(dir) : undefined;
    if (target && canEnter(runAs, target)) return target;
    if (target) throw new Error(`${dir} links to ${target}, which the OS user "${USER}" cannot enter`);
    // The folder it linked to is gone: start afresh below.
    fs.rmSync(dir);
  }
  if (canEnter(runAs, path.dirname(dir))) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chownSync(dir, runAs.uid, runAs.gid);
    return dir;
  }
  if (link && !link.isSymbolicLink()) {
    throw new Error(`the OS user "${USER}" cannot reach ${dir} (a folder on the way is closed to it); move the data elsewhere or open the way (chmod o+x)`);
  }
  const bases = opts.persistent ? ["/var/lib/herald/postgres"] : temporaryBases(runAs).map((b) => path.join(b, "herald-postgres-data"));
  const name = crypto.createHash("sha256").update(path.resolve(dir)).digest("hex").slice(0, 24);
  for (const base of bases) {
    try {
      fs.mkdirSync(base, { recursive: true, mode: 0o755 });
      if (!trusted(base) || !canEnter(runAs, base)) continue;
      removeOrphans(base);
      const target = path.join(base, name);
      fs.rmSync(target, { recursive: true, force: true });
      // Which DATA_DIR/pg this belongs to, so that removing that DATA_DIR lets a later start remove this too.
      fs.writeFileSync(`${target}.owner`, path.resolve(dir) + "\n", { mode: 0o644 });
      fs.mkdirSync(target, { mode: 0o700 });
      fs.chownSync(target, runAs.uid, runAs.gid);
      fs.symlinkSync(target, dir);
      return target;
    } catch {
      // Read-only or otherwise unusable: the next one.
    }
  }
  throw new Error(`the OS user "${USER}" cannot reach ${dir}, and ${bases.join(" or ")} could not hold its data instead`);
}

/** Orphans younger than this are left alone (a start elsewhere may be between creating one and linking it). */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * Data folders under `base` whose DATA_DIR/pg no longer links to them (the DATA_DIR, a clone or a temporary
 * folder, was deleted) and whose Postgres is not running: removed, so deleted clones do not leave their
 * databases behind for ever.
 */
export function removeOrphans(base: string, now = Date.now()): string[] {
  const removed: string[] = [];
  for (const entry of fs.readdirSync(base)) {
    if (!entry.endsWith(".owner")) continue;
    const ownerFile = path.join(base, entry);
    const target = path.join(base, entry.slice(0, -".owner".length));
    try {
      if (now - fs.statSync(ownerFile).mtimeMs < ORPHAN_GRACE_MS) continue;
      const owner = fs.readFileSync(ownerFile, "utf8").trim();
      const link = fs.lstatSync(owner, { throwIfNoEntry: false });
      if (link?.isSymbolicLink() && fs.readlinkSync(owner) === target) continue;
      if (postgresRunningIn(target)) continue;
      fs.rmSync(target, { recursive: true, force: true });
      fs.rmSync(ownerFile, { force: true });
      removed.push(target);
    } catch {
      // Unreadable pieces: left for a later start.
    }
  }
  return removed;
}

/** Whether a Postgres runs on `dataDir` (its postmaster.pid names a live process). */
function postgresRunningIn(dataDir: string): boolean {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!fs.existsSync(pidFile)) return false;
  const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `password` in a file only `runAs` may read, for initdb's --pwfile (its stdin here is a socket, which
 * /dev/stdin cannot reopen), removed as soon as `use` is done.
 */
export async function withPasswordFile<T>(runAs: RunAs | undefined, password: string, use: (file: string) => Promise<T>): Promise<T> {
  const base = runAs ? temporaryBases(runAs)[0] : os.tmpdir();
  if (!base) throw new Error(`no temporary folder the OS user "${USER}" can enter`);
  const dir = fs.mkdtempSync(path.join(base, "herald-pw-"));
  try {
    const file = path.join(dir, "password");
    fs.writeFileSync(file, password + "\n", { mode: 0o600 });
    if (runAs) {
      fs.chownSync(file, runAs.uid, runAs.gid);
      fs.chownSync(dir, runAs.uid, runAs.gid);
    }
    return await use(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

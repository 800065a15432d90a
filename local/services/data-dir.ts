import fs from "node:fs";
import path from "node:path";
import { processInfo, stopProcess } from "./processes";

/**
 * One launcher per DATA_DIR. A lock file names the running launcher; one left by a launcher that died
 * hard is taken over, and the Postgres that launcher left running on this DATA_DIR is stopped first
 * (wrangler needs no such care: its guard stops it when the launcher dies).
 */
export async function takeOverDataDir(dataDir: string, opts: { say: (line: string) => void; inUse: (pid: number) => Error }): Promise<void> {
  const lock = path.join(dataDir, "launcher.pid");
  if (fs.existsSync(lock)) {
    const pid = Number(fs.readFileSync(lock, "utf8").trim());
    const holder = pid !== process.pid ? processInfo(pid) : undefined;
    if (holder && /start\.ts/.test(holder.cmdline)) throw opts.inUse(pid);
  }
  fs.writeFileSync(lock, `${process.pid}\n`);
  process.on("exit", () => {
    try {
      if (fs.readFileSync(lock, "utf8").trim() === String(process.pid)) fs.rmSync(lock);
    } catch {}
  });
  const pgDir = path.join(dataDir, "pg");
  const pidFile = path.join(pgDir, "postmaster.pid");
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
    const leftover = processInfo(pid);
    // As root DATA_DIR/pg may be a link to where Postgres really keeps the data (postgres-os-user.ts).
    if (leftover && leftover.cmdline.includes(fs.realpathSync(pgDir))) {
      opts.say("Stopping the Postgres that an earlier start left running…");
      // SIGINT: Postgres's fast shutdown (roll back open transactions, then stop cleanly).
      await stopProcess(pid, "SIGINT", 15_000);
    }
  }
}

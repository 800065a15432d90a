import fs from "node:fs";

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  cmdline: string;
}

/** Every live process (zombies excluded: they have exited and only wait to be reaped). Linux /proc. */
export function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const state = fields[0];
      if (state === "Z" || state === "X") continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      out.push({ pid: Number(entry), ppid: Number(fields[1]), pgid: Number(fields[2]), state, cmdline });
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}

/** Live processes of a process group. Falls back to kill(-pgid, 0) where there is no /proc. */
export function groupIsAlive(pgid: number): boolean {
  if (fs.existsSync("/proc/self/stat")) return listProcesses().some((p) => p.pgid === pgid);
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Descendants of `pid` (children, their children, …), whatever their process group. */
export function descendants(pid: number, all = listProcesses()): ProcInfo[] {
  const found: ProcInfo[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const p of all) if (p.ppid === parent && !found.includes(p)) found.push(p), queue.push(p.pid);
  }
  return found;
}

/**
 * Stop a whole process group (a `detached` child and everything it spawned, e.g. wrangler and its
 * workerd): SIGTERM, then SIGKILL after `graceMs`.
 */
export async function stopProcessGroup(pgid: number | undefined, graceMs = 5000): Promise<void> {
  if (!pgid || !groupIsAlive(pgid)) return;
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {}
  const deadline = Date.now() + graceMs;
  while (groupIsAlive(pgid) && Date.now() < deadline) await sleep(50);
  if (!groupIsAlive(pgid)) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {}
  const hardDeadline = Date.now() + 2000;
  while (groupIsAlive(pgid) && Date.now() < hardDeadline) await sleep(50);
}

/** A live process by pid (undefined when gone or a zombie). */
export function processInfo(pid: number): ProcInfo | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return listProcesses().find((p) => p.pid === pid);
}

/** Signal one process and wait until it is gone; SIGKILL after `graceMs`. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (processInfo(pid) && Date.now() < deadline) await sleep(100);
  if (!processInfo(pid)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
  const hardDeadline = Date.now() + 2000;
  while (processInfo(pid) && Date.now() < hardDeadline) await sleep(50);
}

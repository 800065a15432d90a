import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { DrainResult } from "../../lib/jobs/consumer";

/**
 * The parent's handle on a consumer child process (consumer-process.ts): drains on command over IPC, reports
 * what it receives, and can be SIGKILLed at any moment.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

export interface ReceivedMessage {
  jobId: string | null;
  receiptHandle: string;
  body: string;
}

export interface ConsumerChild {
  pid: number;
  /** Every message it received, in order. */
  received: ReceivedMessage[];
  /** Set once it reported a stall after a receive. */
  stalled: Promise<void>;
  drain(opts: { budgetMs: number; waitSeconds?: number; stallAfterReceive?: boolean }): Promise<DrainResult>;
  clock(): Promise<number>;
  kill(): Promise<void>;
  exited: Promise<number | null>;
  alive(): boolean;
  /** The last lines it wrote to stderr (for a failure report). */
  stderrTail(): string;
}

export interface ChildOptions {
  env: Record<string, string>;
  clockOffsetMs?: number;
  timeoutScale?: number;
}

export async function startConsumerChild(opts: ChildOptions): Promise<ConsumerChild> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", path.join(here, "consumer-process.ts")], {
    cwd: root,
    env: {
      ...process.env,
      FAULT_ENV: JSON.stringify(opts.env),
      FAULT_CLOCK_OFFSET_MS: String(opts.clockOffsetMs ?? 0),
      FAULT_TIMEOUT_SCALE: String(opts.timeoutScale ?? 1),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    },
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString("utf8")).slice(-4000);
  });
  const received: ReceivedMessage[] = [];
  const pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  let nextId = 1;
  let exitCode: number | null | undefined;
  let onStalled: () => void = () => {};
  const stalled = new Promise<void>((resolve) => (onStalled = resolve));
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      exitCode = code;
      for (const p of pending.values()) p.reject(new Error(`consumer child exited (${code}) ${stderr.slice(-500)}`));
      pending.clear();
      resolve(code);
    }),
  );
  child.on("message", (m: any) => {
    if (m.event === "ready") onReady();
    else if (m.event === "received") received.push(...m.messages);
    else if (m.event === "stalled") onStalled();
    else if (typeof m.id === "number") {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error));
      else p?.resolve(m.result ?? m.now);
    }
  });
  const call = <T>(message: object) =>
    new Promise<T>((resolve, reject) => {
      if (exitCode !== undefined) return reject(new Error("consumer child has exited"));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, ...message });
    });
  await Promise.race([ready, exited.then(() => Promise.reject(new Error(`consumer child died at start: ${stderr}`)))]);
  return {
    pid: child.pid!,
    received,
    stalled,
    drain: (o) => call<DrainResult>({ cmd: "drain", ...o }),
    clock: () => call<number>({ cmd: "clock" }),
    async kill() {
      if (exitCode === undefined) child.kill("SIGKILL");
      await exited;
    },
    exited,
    alive: () => exitCode === undefined,
    stderrTail: () => stderr.slice(-1000),
  };
}

/**
 * Children start in about a second or two (tsx and Herald's modules); one is always kept warm for the next
 * run of the same clock, so a cell does not wait for it.
 */
export class ChildPool {
  private spare = new Map<string, Promise<ConsumerChild>>();
  private free = new Map<string, ConsumerChild[]>();
  private all = new Set<ConsumerChild>();
  private keyOf = new Map<ConsumerChild, string>();
  constructor(private readonly env: Record<string, string>) {}

  private key(o: Omit<ChildOptions, "env">) {
    return `${o.clockOffsetMs ?? 0}/${o.timeoutScale ?? 1}`;
  }

  private spawn(o: Omit<ChildOptions, "env">) {
    const p = startConsumerChild({ env: this.env, ...o }).then((c) => {
      this.all.add(c);
      this.keyOf.set(c, this.key(o));
      return c;
    });
    p.catch(() => {});
    return p;
  }

  /** A child with this clock that is not draining: one given back alive, else a fresh one. */
  async take(o: Omit<ChildOptions, "env"> = {}): Promise<ConsumerChild> {
    const k = this.key(o);
    const reused = this.free.get(k)?.pop();
    if (reused?.alive()) {
      reused.received.length = 0;
      return reused;
    }
    const got = this.spare.get(k) ?? this.spawn(o);
    this.spare.set(k, this.spawn(o));
    return got;
  }

  /** A child whose drains have all returned, alive, for another run (a killed one is simply dropped). */
  give(child: ConsumerChild) {
    const k = this.keyOf.get(child);
    if (k === undefined || !child.alive()) return;
    this.free.set(k, [...(this.free.get(k) ?? []), child]);
  }

  async stop() {
    for (const p of this.spare.values()) {
      const child = await p.catch(() => null);
      if (child) this.all.add(child);
    }
    await Promise.all([...this.all].filter(Boolean).map((c) => c.kill()));
  }
}

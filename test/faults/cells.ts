import { sql } from "drizzle-orm";
import type { ConsumerChild } from "./child";
import type { Decision, Held, ProxiedRequest } from "./proxy";
import type { Rng } from "./rng";
import {
  api,
  childDrain,
  expireLease,
  inProcessDrain,
  lapseVisibility,
  newRun,
  postOf,
  publishNow,
  randomDestinations,
  readState,
  recover,
  refreshRenditions,
  rememberHeld,
  runRequests,
  sendJobAgain,
  type Run,
  type World,
} from "./world";

/**
 * The cells of the fault matrix: each makes a publication from its run's seed (one or two destinations, webhook
 * or Bluesky, threads of one to three segments), injects its fault at a seeded rendition and segment, proves the
 * fault really happened (else the run fails), then lets production's own recovery run to the end. The verdict
 * (check.ts) is the same for every cell.
 */
export interface Cell {
  name: string;
  fault: string;
  run(world: World, rng: Rng, seed: number): Promise<Run>;
}

interface Target {
  rendition: number;
  position: number;
}

function pickTarget(run: Run): Target {
  const r = run.rng.int(0, run.renditions.length - 1);
  const rendition = run.renditions[r];
  return { rendition: r, position: rendition.platform === "webhook" ? 0 : run.rng.int(0, rendition.segments - 1) };
}

const isTarget = (run: Run, req: ProxiedRequest, t: Target) => {
  const post = postOf(run, req);
  return post !== null && post.rendition === t.rendition && post.position === t.position;
};

/** The first attempt at the target post gets `decision`; everything else passes. */
function onFirst(run: Run, t: Target, decision: Decision) {
  let fired = false;
  run.world.proxy.setDecide((req) => {
    if (!fired && isTarget(run, req, t)) {
      fired = true;
      return decision;
    }
    return "pass";
  });
}

const describeTarget = (run: Run, t: Target) => `rendition ${t.rendition} (${run.renditions[t.rendition].platform}) segment ${t.position}`;

async function holdOrFail(run: Run, t: Target, child?: ConsumerChild, timeoutMs = 20_000): Promise<Held | null> {
  try {
    return await run.world.proxy.nextHold(timeoutMs);
  } catch {
    run.failures.push(
      `fault not injected: the post of ${describeTarget(run, t)} never reached the provider${child ? ` (consumer said: ${child.stderrTail().slice(-300)})` : ""}`,
    );
    return null;
  }
}

/** A drain started in the background; its failure (a killed child) is expected and kept for the report. */
function background(run: Run, p: Promise<unknown>) {
  return p.then(
    (v) => v,
    (e) => {
      run.notes.push(`background drain ended: ${String((e as Error)?.message ?? e).slice(0, 200)}`);
      return null;
    },
  );
}

async function killChild(run: Run, child: ConsumerChild) {
  await child.kill();
  rememberHeld(run, child);
}

async function setup(world: World, rng: Rng, seed: number) {
  const run = await newRun(world, rng, seed, randomDestinations(rng));
  return { run, target: pickTarget(run) };
}

export const CELLS: Cell[] = [
  {
    name: "no fault",
    fault: "nothing injected (the baseline every other cell is measured against)",
    async run(world, rng, seed) {
      const { run } = await setup(world, rng, seed);
      await publishNow(run);
      await recover(run);
      return run;
    },
  },
  {
    name: "killed before the provider call",
    fault: "the consumer (a child process) is SIGKILLed while its post is held at the proxy, before it reaches the provider",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      onFirst(run, target, "hold-before");
      const child = await world.children.take();
      await publishNow(run);
      const draining = background(run, child.drain({ budgetMs: 30_000, waitSeconds: 0 }));
      const held = await holdOrFail(run, target);
      await killChild(run, child);
      held?.release("drop");
      await draining;
      if (held && held.request.forwarded) run.failures.push("fault not injected: the held post was forwarded");
      await recover(run);
      return run;
    },
  },
  {
    name: "killed after the provider accepted",
    fault: "the provider accepted the post; its answer is held at the proxy and the consumer is SIGKILLed before it writes the outcome",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      onFirst(run, target, "hold-after");
      const child = await world.children.take();
      await publishNow(run);
      const draining = background(run, child.drain({ budgetMs: 30_000, waitSeconds: 0 }));
      const held = await holdOrFail(run, target);
      await killChild(run, child);
      held?.release("drop");
      await draining;
      if (held && !(held.request.providerStatus && held.request.providerStatus < 300))
        run.failures.push(`fault not injected: the provider did not accept the post (${held.request.providerStatus})`);
      await recover(run);
      return run;
    },
  },
  {
    name: "lease expired, first wakes up",
    fault: "the first delivery is held at its post past its lease; a second consumer takes over and finishes; then the first is released",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      onFirst(run, target, "hold-before");
      const first = await world.children.take();
      await publishNow(run);
      const draining = background(run, first.drain({ budgetMs: 60_000, waitSeconds: 0 }));
      const held = await holdOrFail(run, target);
      if (held) {
        const renditionId = run.renditions[target.rendition].id;
        // Two minutes pass: the lease lapses, and so does the job message's visibility (60 s).
        await expireLease(run, renditionId);
        for (const m of first.received) await lapseVisibility(world, m.receiptHandle);
        const second = inProcessDrain(world);
        for (let i = 0; i < 5; i++) {
          await second({ budgetMs: 5000 });
          const state = await readState(run);
          if (state.renditions.find((r) => r.id === renditionId)?.status !== "publishing") break;
        }
        const before = await renditionSnapshot(run, renditionId);
        held.release("forward");
        await draining;
        const after = await renditionSnapshot(run, renditionId);
        if (after !== before)
          run.failures.push(`the first delivery, woken after losing its lease, changed the rendition:\n      before ${before}\n      after  ${after}`);
      }
      world.children.give(first);
      await recover(run);
      return run;
    },
  },
  {
    name: "SQS message delivered twice",
    fault: "the job's message is sent a second time and two consumers run it at once (one held at its post while the other runs)",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      onFirst(run, target, "hold-before");
      const [a, b] = await Promise.all([world.children.take(), world.children.take()]);
      await publishNow(run);
      const drainingA = background(run, a.drain({ budgetMs: 30_000, waitSeconds: 0 }));
      const held = await holdOrFail(run, target);
      const jobId = await sendJobAgain(run);
      // The second consumer receives the second copy while the first is held at its post.
      const drainingB = background(run, b.drain({ budgetMs: 15_000, waitSeconds: 0 }));
      for (let i = 0; i < 100 && !b.received.some((m) => m.jobId === jobId); i++) await new Promise((r) => setTimeout(r, 50));
      if (rng.chance(0.5)) {
        held?.release("forward"); // both deliveries run side by side
        await Promise.all([drainingA, drainingB]);
      } else {
        await drainingB; // the second ends first, then the first goes on
        held?.release("forward");
        await drainingA;
      }
      const gotA = a.received.some((m) => m.jobId === jobId);
      const gotB = b.received.some((m) => m.jobId === jobId);
      if (!gotA || !gotB) run.failures.push(`fault not injected: the job was received by ${gotA ? "the first" : ""}${gotB ? "the second" : ""} consumer only`);
      world.children.give(a);
      world.children.give(b);
      await recover(run);
      return run;
    },
  },
  {
    name: "SQS message lost until visibility lapses",
    fault: "a consumer receives the job's message and is SIGKILLed before handling it; the message comes back when its visibility lapses",
    async run(world, rng, seed) {
      const { run } = await setup(world, rng, seed);
      const child = await world.children.take();
      await publishNow(run);
      const draining = background(run, child.drain({ budgetMs: 30_000, waitSeconds: 5, stallAfterReceive: true }));
      const stalled = await Promise.race([child.stalled.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
      await killChild(run, child);
      await draining;
      if (!stalled || child.received.length === 0) run.failures.push("fault not injected: the consumer never received the job's message");
      if (runRequests(run).some((r) => r.isPost)) run.failures.push("fault not injected: the killed consumer had already posted");
      await recover(run);
      return run;
    },
  },
  {
    name: "provider 5xx",
    fault: "the provider answers 500, 502, 503 or 504 to a post: one to three times in a row, or on every attempt",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      const times = rng.pick([1, 2, 3, Infinity]);
      const status = rng.pick([500, 502, 503, 504]);
      let count = 0;
      world.proxy.setDecide((req) => (isTarget(run, req, target) && count++ < times ? { status } : "pass"));
      await publishNow(run);
      // The provider keeps failing while production's own recovery runs.
      await recover(run, inProcessDrain(world), { keepFaults: true });
      if (count === 0) run.failures.push(`fault not injected: no ${status} was answered to ${describeTarget(run, target)}`);
      run.notes.push(`${Math.min(count, times)}×${status}${times === Infinity ? " (every attempt)" : ""}`);
      await recover(run);
      return run;
    },
  },
  {
    name: "provider timeout after accepting",
    fault: "the provider accepts the post and never answers; Herald's provider timeout fires (the child's timers run 10× fast)",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      onFirst(run, target, "blackhole");
      const child = await world.children.take({ timeoutScale: 0.1 });
      await publishNow(run);
      const result = await background(run, child.drain({ budgetMs: 30_000, waitSeconds: 0 }));
      run.notes.push(`timeout consumer: ${JSON.stringify(result)}, received ${child.received.map((m) => m.jobId).join(",")}`);
      const blackholed = runRequests(run).find((r) => r.action === "blackhole");
      if (!blackholed)
        run.failures.push(`fault not injected: the post of ${describeTarget(run, target)} never came (consumer said: ${child.stderrTail().slice(-300)})`);
      else {
        if (!blackholed.forwarded) run.failures.push("fault not injected: the provider never got the post");
        // Herald's side closes the connection when its timeout fires.
        await new Promise((r) => setTimeout(r, 200));
        if (!blackholed.clientGone) run.failures.push("Herald's provider timeout did not fire (the connection is still open)");
      }
      world.children.give(child);
      await recover(run);
      return run;
    },
  },
  {
    name: "user edit in the middle of a delivery",
    fault:
      "while a post is held, PUT /publications/{id} edits every destination; the provider then refuses the post (400) and the user edits and publishes again, as advised",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      onFirst(run, target, "hold-before");
      await publishNow(run);
      const draining = background(run, inProcessDrain(world)({ budgetMs: 30_000 }));
      const held = await holdOrFail(run, target);
      const edited = (label: string) => ({
        expected_revision: run.revision,
        destinations: run.renditions.map((r) => ({
          social_account_id: r.accountId,
          segments: Array.from({ length: r.segments }, (_, s) => ({ body: `Edited (${label}) destination ${r.index}, post ${s + 1}, run ${seed}.` })),
        })),
      });
      const midway = await api(world, "PUT", `/publications/${run.publicationId}`, edited("midway"));
      run.notes.push(`PUT while delivering: ${midway.status}`);
      if (midway.status === 200) run.revision = midway.body.revision;
      held?.release({ status: 400 });
      await draining;
      await recover(run);
      const state = await readState(run);
      if (state.publication === "failed" || state.publication === "partially_published") {
        // Follow the advice ("edit the rendition and publish again").
        const [current] = [(await api(world, "GET", `/publications/${run.publicationId}`)).body];
        run.revision = current?.revision ?? run.revision;
        const again = await api(world, "PUT", `/publications/${run.publicationId}`, edited("after"));
        run.notes.push(`PUT after the refusal (${state.publication}): ${again.status}`);
        if (again.status === 200) run.revision = again.body.revision;
        for (const r of state.renditions) run.attemptBase.set(r.id, r.attempts);
        await refreshRenditions(run);
        const res = await api(world, "POST", `/publications/${run.publicationId}/publish-now`, { expected_revision: run.revision });
        run.notes.push(`publish again: ${res.status}`);
        if (res.status === 202) {
          run.terminalAt.clear();
          await recover(run);
        }
      }
      return run;
    },
  },
  {
    name: "user cancel in the middle of a delivery",
    fault: "while a post is held, POST /publications/{id}/cancel; then the post goes on",
    async run(world, rng, seed) {
      const { run, target } = await setup(world, rng, seed);
      onFirst(run, target, "hold-before");
      await publishNow(run);
      const draining = background(run, inProcessDrain(world)({ budgetMs: 30_000 }));
      const held = await holdOrFail(run, target);
      const cancel = await api(world, "POST", `/publications/${run.publicationId}/cancel`, { expected_revision: run.revision });
      const canceledAt = world.proxy.requests.length;
      if (cancel.status !== 200)
        run.failures.push(`POST /publications/{id}/cancel answered ${cancel.status} (${String(cancel.body?.type ?? cancel.text).slice(0, 80)})`);
      held?.release("forward");
      await draining;
      await recover(run);
      const state = await readState(run);
      for (const r of state.renditions.filter((x) => x.status === "canceled")) {
        const sent = world.proxy.requests
          .slice(canceledAt)
          .filter((req) => req.forwarded && postOf(run, req)?.rendition === run.renditions.find((x) => x.id === r.id)?.index);
        if (sent.length) run.failures.push(`rendition canceled, yet ${sent.length} post(s) were sent after the cancel`);
      }
      return run;
    },
  },
  ...(["ahead of", "behind"] as const).map(
    (way): Cell => ({
      name: `Worker clock 5 min ${way} the database`,
      fault: `every consumer runs with its clock 5 minutes ${way} the database's; one delivery is held at its post while a second delivery of the job runs`,
      async run(world, rng, seed) {
        const offset = way === "ahead of" ? 300_000 : -300_000;
        const { run, target } = await setup(world, rng, seed);
        const child = await world.children.take({ clockOffsetMs: offset });
        const skew = (await child.clock()) - Date.now();
        if (Math.abs(skew - offset) > 10_000) run.failures.push(`fault not injected: the child's clock is ${skew} ms off, not ${offset}`);
        onFirst(run, target, "hold-before");
        await publishNow(run);
        const first = background(run, child.drain({ budgetMs: 30_000, waitSeconds: 0 }));
        const held = await holdOrFail(run, target, child);
        await sendJobAgain(run);
        await child.drain({ budgetMs: 5000, waitSeconds: 0 }).catch(() => null);
        held?.release("forward");
        await first;
        await recover(run, childDrain(child));
        world.children.give(child);
        return run;
      },
    }),
  ),
  {
    name: "drain killed at its time budget",
    fault: "a drain with a 1.5 s budget against a slow provider (0.4 s a post) is SIGKILLed at 1.2 × its budget, as a Worker's waitUntil ends",
    async run(world, rng, seed) {
      const { run } = await setup(world, rng, seed);
      world.proxy.setDecide((req) => (postOf(run, req) ? { delayMs: 400 } : "pass"));
      const child = await world.children.take();
      await publishNow(run);
      const started = Date.now();
      const draining = background(run, child.drain({ budgetMs: 1500, waitSeconds: 0 }));
      await Promise.race([draining, new Promise((r) => setTimeout(r, 1800))]);
      const stillRunning = child.alive() && Date.now() - started >= 1750;
      await killChild(run, child);
      await draining;
      if (child.received.length === 0) run.failures.push("fault not injected: the drain never received the job before its budget ran out");
      run.notes.push(
        `${stillRunning ? "killed while still draining" : "the drain had returned within its budget"}, ${runRequests(run).filter((r) => r.isPost).length} post(s) sent`,
      );
      await recover(run);
      return run;
    },
  },
];

/** What a late writer could change: the rendition's row (all of it) and its segments. */
async function renditionSnapshot(run: Run, renditionId: string): Promise<string> {
  const state = await readState(run);
  const r = state.renditions.find((x) => x.id === renditionId);
  const { rows } = await run.world.db.execute(
    sql`select status, external_id, error_code, current_attempt_id, updated_at, lease_until from renditions where id = ${renditionId}`,
  );
  return JSON.stringify({ ...rows[0], segments: r?.segments });
}

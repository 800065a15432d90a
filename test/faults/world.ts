import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { sql } from "drizzle-orm";
import gateway from "../../functions/all-groups";
import { sweepStalledDeliveries } from "../../lib/delivery/stalled";
import { socialAccounts, workspaceMembers, workspaces, type Role } from "../../db/schema";
import { issueToken } from "../../lib/auth/tokens";
import { createUser } from "../../lib/auth/users";
import { personalOrganizationId } from "../../lib/billing/organizations";
import { openDb, type Database } from "../../lib/db/client";
import type { Env } from "../../lib/env";
import { newId } from "../../lib/ids";
import { drainQueue, type DrainResult } from "../../lib/jobs/consumer";
import { LEASE_SECONDS } from "../../lib/delivery/rules";
import { MAX_ATTEMPTS, retryDelaySeconds } from "../../lib/jobs/retry-policy";
import { relayOutbox } from "../../lib/jobs/outbox";
import { queueUrl, sharedSqsClient } from "../../lib/jobs/sqs";
import { recordKey } from "../../lib/platforms/bluesky/adapter";
import { encryptJson } from "../../lib/secrets";
import { startEphemeralStack, type EphemeralStack } from "../../local/services/ephemeral-stack";
import { publish } from "../../queues/publish";
import { startPds, type PdsPeer } from "../peers/bluesky-pds";
import { startWebhookReceiver, type WebhookPeer } from "../peers/webhook-receiver";
import { ChildPool, type ConsumerChild } from "./child";
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from "./proxy";
import type { Rng } from "./rng";

/**
 * The world a fault matrix runs in: a Postgres, SQS and outbox of its own (so no other test file's relay or
 * consumer touches these publications while a fault is being injected), the webhook receiver and the Bluesky
 * PDS behind the fault proxy, the API in-process, and consumers in-process or in child processes.
 */

/** The local SQS visibility timeout (local/services/sqs.ts): a message a dead consumer held comes back after it. */
export const VISIBILITY_MS = 60_000;
/**
 * CONTRACT §9: at most 8 attempts on §4's schedule, and nothing `publishing` beyond 15 minutes after its delivery
 * stopped. The latest a rendition may still be open: every retry delay at its longest (+20 % jitter), plus a
 * lease, plus the 15 minutes.
 */
export const TERMINAL_BOUND_MS = (() => {
  let total = 0;
  for (let a = 1; a < MAX_ATTEMPTS; a++) total += retryDelaySeconds(a, 1) * 1000;
  return total + LEASE_SECONDS * 1000 + 15 * 60_000;
})();

export interface World {
  env: Env;
  db: Database;
  proxy: FaultProxy;
  receiver: WebhookPeer;
  pds: PdsPeer;
  children: ChildPool;
  owner: { id: string; token: string };
  workspaceId: string;
  stop(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  let stack: EphemeralStack | undefined;
  let pds: PdsPeer | undefined;
  const [s, p, receiver] = await Promise.all([startEphemeralStack("herald-faults"), startPds(), startWebhookReceiver()]);
  stack = s;
  pds = p;
  const env = stack.env as unknown as Env;
  const proxy = await startFaultProxy({ webhook: receiver.url, pds: pds.url });
  const handle = openDb(env);
  const db = handle.db;
  const user = await createUser(db, { email: `faults-${Date.now()}@example.test`, displayName: "Fault Matrix", isAdmin: false });
  const { token } = await issueToken(db, user.id, "faults");
  const workspaceId = newId("wsp");
  await db.insert(workspaces).values({ id: workspaceId, name: "Fault matrix", organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
  await db.insert(workspaceMembers).values({ workspaceId, userId: user.id, role: "owner" as Role });
  const children = new ChildPool(stack.env);
  return {
    env,
    db,
    proxy,
    receiver,
    pds,
    children,
    owner: { id: user.id, token },
    workspaceId,
    async stop() {
      await children.stop().catch(() => {});
      await proxy.stop().catch(() => {});
      await handle.close().catch(() => {});
      await Promise.all([receiver.stop(), pds?.stop(), stack?.stop()].map((x) => x?.catch(() => {})));
    },
  };
}

/** The API in-process, with this world's bindings. */
export async function api(world: World, method: string, path: string, json?: unknown): Promise<{ status: number; body: any; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${world.owner.token}` };
  if (json !== undefined) headers["content-type"] = "application/json";
  const res = await gateway.request(path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) }, world.env);
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body, text };
}

// ---------------------------------------------------------------------------------------------------------------
// A run's publication

export interface Destination {
  platform: "webhook" | "bluesky";
  segments: number;
}

export interface RunRendition {
  index: number;
  id: string;
  accountId: string;
  platform: "webhook" | "bluesky";
  deliveryKey: string;
  segments: number;
  did?: string;
  /** The Bluesky account's own session token (for a test that writes to the repository directly). */
  accessJwt?: string;
}

export interface Run {
  world: World;
  rng: Rng;
  seed: number;
  publicationId: string;
  revision: number;
  renditions: RunRendition[];
  /** Record keys of every delivery key a rendition has had → (rendition, position). */
  rkeys: Map<string, { rendition: number; position: number }>;
  /** Real time at the start of the run, and the simulated time added by moving the database's times back. */
  startedAt: number;
  shiftedMs: number;
  /** Receipt handles of messages held by killed consumers, with the simulated time they were received. */
  heldMessages: { receiptHandle: string; at: number }[];
  /** The simulated time each rendition was first seen terminal. */
  terminalAt: Map<string, number>;
  /** Attempts already made before a user's publish-again (the 8-attempt bound counts per delivery). */
  attemptBase: Map<string, number>;
  /** Failed assertions of this run, besides lost, duplicated and stuck. */
  failures: string[];
  /** Notes for a failure report. */
  notes: string[];
  firstRequest: number;
}

/** Simulated time since the run started. */
export const elapsed = (run: Run) => Date.now() - run.startedAt + run.shiftedMs;

export function randomDestinations(rng: Rng): Destination[] {
  const n = rng.int(1, 2);
  return Array.from({ length: n }, () => ({ platform: rng.pick(["webhook", "bluesky"] as const), segments: rng.int(1, 3) }));
}

export async function newRun(world: World, rng: Rng, seed: number, destinations: Destination[]): Promise<Run> {
  world.proxy.setDecide(null);
  const tag = `${seed.toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
  const accounts: { id: string; did?: string; accessJwt?: string; platform: Destination["platform"] }[] = [];
  for (const [i, d] of destinations.entries()) {
    const id = newId("acc");
    let did: string | undefined;
    let accessJwt: string | undefined;
    if (d.platform === "webhook") {
      await world.db.insert(socialAccounts).values({
        id,
        workspaceId: world.workspaceId,
        platform: "webhook",
        username: `hook-${tag}-${i}`,
        url: `${world.proxy.url}/hook/${tag}/${i}`,
        credentialsCiphertext: await encryptJson(world.env.INSTANCE_SECRET_KEY!, {}),
        createdBy: world.owner.id,
      });
    } else {
      const who = await world.pds.createAccount("fm");
      did = who.did;
      accessJwt = who.accessJwt;
      await world.db.insert(socialAccounts).values({
        id,
        workspaceId: world.workspaceId,
        platform: "bluesky",
        username: who.handle,
        instanceUrl: world.proxy.url,
        credentialsCiphertext: await encryptJson(world.env.INSTANCE_SECRET_KEY!, { identifier: who.handle, app_password: who.appPassword }),
        createdBy: world.owner.id,
      });
    }
    accounts.push({ id, did, accessJwt, platform: d.platform });
  }
  const created = await api(world, "POST", "/publications", {
    workspace_id: world.workspaceId,
    title: `Fault run ${tag}`,
    source_text: `Fault matrix run ${tag}.`,
    destinations: destinations.map((d, i) => ({
      social_account_id: accounts[i].id,
      segments: Array.from({ length: d.segments }, (_, s) => ({ body: `Run ${tag}, destination ${i}, post ${s + 1} of ${d.segments}.` })),
    })),
  });
  if (created.status !== 201) throw new Error(`POST /publications answered ${created.status}: ${created.text.slice(0, 500)}`);
  const run: Run = {
    world,
    rng,
    seed,
    publicationId: created.body.id,
    revision: created.body.revision ?? 1,
    renditions: [],
    rkeys: new Map(),
    startedAt: Date.now(),
    shiftedMs: 0,
    heldMessages: [],
    terminalAt: new Map(),
    attemptBase: new Map(),
    failures: [],
    notes: [],
    firstRequest: world.proxy.requests.length,
  };
  await refreshRenditions(run, destinations, accounts);
  return run;
}

/** Read the renditions (ids, delivery keys) again, e.g. after an edit gave them new delivery keys. */
export async function refreshRenditions(run: Run, destinations?: Destination[], accounts?: { id: string; did?: string; accessJwt?: string }[]) {
  const rows = (
    await run.world.db.execute(
      sql`select id, social_account_id, platform, delivery_key, position from renditions where publication_id = ${run.publicationId} order by position`,
    )
  ).rows as {
    id: string;
    social_account_id: string;
    platform: "webhook" | "bluesky";
    delivery_key: string;
    position: number;
  }[];
  const segs = (
    await run.world.db.execute(
      sql`select rendition_id, count(*)::int as n from rendition_segments where rendition_id in (select id from renditions where publication_id = ${run.publicationId}) group by rendition_id`,
    )
  ).rows as { rendition_id: string; n: number }[];
  const previous = new Map(run.renditions.map((r) => [r.accountId, r]));
  run.renditions = rows.map((r, index) => ({
    index,
    id: r.id,
    accountId: r.social_account_id,
    platform: r.platform,
    deliveryKey: r.delivery_key,
    segments: segs.find((s) => s.rendition_id === r.id)?.n ?? destinations?.[index]?.segments ?? 0,
    did: previous.get(r.social_account_id)?.did ?? accounts?.find((a) => a.id === r.social_account_id)?.did,
    accessJwt: previous.get(r.social_account_id)?.accessJwt ?? accounts?.find((a) => a.id === r.social_account_id)?.accessJwt,
  }));
  for (const r of run.renditions) {
    if (r.platform !== "bluesky") continue;
    for (let p = 0; p < Math.max(r.segments, 3); p++) run.rkeys.set(await recordKey(r.deliveryKey, p), { rendition: r.index, position: p });
  }
}

/** Which rendition and segment a proxied post is, or null (not a post, or another run's). */
export function postOf(run: Run, req: ProxiedRequest): { rendition: number; position: number } | null {
  if (!req.isPost) return null;
  if (req.target === "webhook") {
    const r = run.renditions.find((x) => x.id === req.json?.rendition_id);
    return r ? { rendition: r.index, position: 0 } : null;
  }
  const hit = run.rkeys.get(req.json?.rkey);
  return hit ?? null;
}

/** This run's proxied requests. */
export const runRequests = (run: Run) => run.world.proxy.requests.slice(run.firstRequest);

// ---------------------------------------------------------------------------------------------------------------
// Driving the pipeline

export async function publishNow(run: Run): Promise<void> {
  const res = await api(run.world, "POST", `/publications/${run.publicationId}/publish-now`, { expected_revision: run.revision });
  if (res.status !== 202) throw new Error(`publish-now answered ${res.status}: ${res.text.slice(0, 300)}`);
  run.revision = res.body?.revision ?? run.revision + 1;
  // The job is sent to SQS after the response: wait until it is (or leave it to the relay after 3 s).
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const rows = (
      await run.world.db.execute(
        sql`select count(*)::int as n from outbox_jobs where kind = 'publication.publish' and payload->>'publication_id' = ${run.publicationId} and sent_at is null and not dead_letter`,
      )
    ).rows as { n: number }[];
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The publish job's message, as the relay sends it (for sending it a second time). */
export async function sendJobAgain(run: Run): Promise<string> {
  const [job] = (
    await run.world.db.execute(
      sql`select id, kind, workspace_id, payload from outbox_jobs where kind = 'publication.publish' and payload->>'publication_id' = ${run.publicationId} and not dead_letter order by created_at desc limit 1`,
    )
  ).rows as {
    id: string;
    kind: string;
    workspace_id: string | null;
    payload: unknown;
  }[];
  if (!job) throw new Error("no publish job to send again");
  await sharedSqsClient(run.world.env).send(
    new SendMessageCommand({
      QueueUrl: queueUrl(run.world.env, "publication.publish"),
      MessageBody: JSON.stringify({ job_id: job.id, kind: job.kind, workspace_id: job.workspace_id, payload: job.payload }),
    }),
  );
  return job.id;
}

export type Drain = (opts?: { budgetMs?: number }) => Promise<DrainResult>;

export const inProcessDrain =
  (world: World): Drain =>
  (opts = {}) =>
    drainQueue(world.env, publish, { waitSeconds: 0, budgetMs: opts.budgetMs ?? 3000 });

export const childDrain =
  (child: ConsumerChild): Drain =>
  (opts = {}) =>
    child.drain({ waitSeconds: 0, budgetMs: opts.budgetMs ?? 3000 });

/** A killed consumer's messages: they come back once their visibility lapses (simulated: see advance). */
export function rememberHeld(run: Run, child: ConsumerChild) {
  for (const m of child.received) run.heldMessages.push({ receiptHandle: m.receiptHandle, at: elapsed(run) });
}

/** Make a message visible again now (its visibility lapsed). False when SQS no longer knows the handle. */
export async function lapseVisibility(world: World, receiptHandle: string): Promise<boolean> {
  try {
    await sharedSqsClient(world.env).send(
      new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(world.env, "publication.publish"), ReceiptHandle: receiptHandle, VisibilityTimeout: 0 }),
    );
    return true;
  } catch {
    return false;
  }
}

let timestampColumns: Promise<Record<string, string[]>> | undefined;

/** Every timestamp column of the tables a delivery's times live in (whatever columns the schema has today). */
function columnsToShift(db: Database) {
  timestampColumns ??= (async () => {
    const rows = (
      await db.execute(
        sql`select table_name, column_name from information_schema.columns where table_schema = 'public' and data_type like 'timestamp%' and table_name in ('publications', 'renditions', 'rendition_segments', 'delivery_attempts', 'outbox_jobs')`,
      )
    ).rows as {
      table_name: string;
      column_name: string;
    }[];
    const out: Record<string, string[]> = {};
    for (const r of rows) (out[r.table_name] ??= []).push(r.column_name);
    return out;
  })();
  return timestampColumns;
}

/**
 * Let `ms` of time pass for this run: every time of its publication, renditions, segments, attempts and jobs
 * moves that far into the past (the database's clock, which decides, is left alone).
 */
export async function shiftTime(run: Run, ms: number): Promise<void> {
  const cols = await columnsToShift(run.world.db);
  const set = (table: string) => sql.raw((cols[table] ?? []).map((c) => `"${c}" = "${c}" - interval '${Math.round(ms)} milliseconds'`).join(", "));
  const pub = run.publicationId;
  const db = run.world.db;
  if (cols.publications?.length) await db.execute(sql`update publications set ${set("publications")} where id = ${pub}`);
  if (cols.renditions?.length) await db.execute(sql`update renditions set ${set("renditions")} where publication_id = ${pub}`);
  if (cols.rendition_segments?.length)
    await db.execute(
      sql`update rendition_segments set ${set("rendition_segments")} where rendition_id in (select id from renditions where publication_id = ${pub})`,
    );
  if (cols.delivery_attempts?.length)
    await db.execute(
      sql`update delivery_attempts set ${set("delivery_attempts")} where rendition_id in (select id from renditions where publication_id = ${pub})`,
    );
  if (cols.outbox_jobs?.length) await db.execute(sql`update outbox_jobs set ${set("outbox_jobs")} where payload->>'publication_id' = ${pub}`);
  run.shiftedMs += ms;
}

/** Expire one rendition's lease now (its holder is presumed dead), by moving time on by the lease's remainder. */
export async function expireLease(run: Run, renditionId: string): Promise<void> {
  const [row] = (await run.world.db.execute(sql`select extract(epoch from (lease_until - now())) * 1000 as ms from renditions where id = ${renditionId}`))
    .rows as { ms: number | null }[];
  const ms = row?.ms === null || row?.ms === undefined ? 0 : Number(row.ms);
  await shiftTime(run, Math.max(1000, ms + 1000));
}

export interface RenditionState {
  id: string;
  status: string;
  error_code: string | null;
  external_id: string | null;
  attempts: number;
  lease_until: Date | null;
  current_attempt_id: string | null;
  segments: { position: number; status: string; external_id: string | null }[];
}

export async function readState(run: Run): Promise<{ publication: string; renditions: RenditionState[] }> {
  const db = run.world.db;
  const [pub] = (await db.execute(sql`select status from publications where id = ${run.publicationId}`)).rows as { status: string }[];
  const rows = (
    await db.execute(
      sql`select r.id, r.status, r.error_code, r.external_id, r.lease_until, r.current_attempt_id, (select count(*)::int from delivery_attempts a where a.rendition_id = r.id) as attempts from renditions r where r.publication_id = ${run.publicationId} order by r.position`,
    )
  ).rows as Omit<RenditionState, "segments">[];
  const segs = (
    await db.execute(
      sql`select rendition_id, position, status, external_id from rendition_segments where rendition_id in (select id from renditions where publication_id = ${run.publicationId}) order by position`,
    )
  ).rows as {
    rendition_id: string;
    position: number;
    status: string;
    external_id: string | null;
  }[];
  return {
    publication: pub?.status ?? "deleted",
    renditions: rows.map((r) => ({ ...r, segments: segs.filter((s) => s.rendition_id === r.id).map(({ rendition_id: _, ...s }) => s) })),
  };
}

export const TERMINAL = new Set(["published", "failed", "canceled"]);

/**
 * After the fault: what production runs on its own (the outbox relay, the publish consumer, the stalled-delivery
 * sweep) until every rendition is terminal, time moving on between rounds to whatever is due next (a retry, a
 * lease, a follow-up job), 5 minutes at a time when nothing is due. Stops once the run is past its bound.
 */
export async function recover(run: Run, drain: Drain = inProcessDrain(run.world), opts: { keepFaults?: boolean } = {}): Promise<void> {
  const { world } = run;
  if (!opts.keepFaults) run.world.proxy.setDecide(null);
  for (let round = 0; round < 120; round++) {
    const relayed = await relayOutbox(world.db, world.env, { kinds: ["publication.publish"] });
    const drained = await drain();
    const state = await readState(run);
    for (const r of state.renditions) if (TERMINAL.has(r.status) && !run.terminalAt.has(r.id)) run.terminalAt.set(r.id, elapsed(run));
    if (state.renditions.every((r) => TERMINAL.has(r.status)) && state.publication !== "publishing") return;
    if (elapsed(run) > TERMINAL_BOUND_MS + 10 * 60_000) return;
    if (relayed.sent > 0 || drained.received > 0) continue; // work happened: look again before moving time
    const [next] = (
      await world.db.execute(sql`
      select extract(epoch from (min(t) - now())) * 1000 as ms from (
        select next_attempt_at as t from renditions where publication_id = ${run.publicationId} and status not in ('published', 'failed', 'canceled') and next_attempt_at > now()
        union all select lease_until from renditions where publication_id = ${run.publicationId} and status not in ('published', 'failed', 'canceled') and lease_until > now()
        union all select next_attempt_at from outbox_jobs where payload->>'publication_id' = ${run.publicationId} and sent_at is null and next_attempt_at > now()
        union all select send_lease_until from outbox_jobs where payload->>'publication_id' = ${run.publicationId} and sent_at is null and send_lease_until > now()
      ) due`)
    ).rows as { ms: number | null }[];
    const lapses = run.heldMessages.map((m) => m.at + VISIBILITY_MS - elapsed(run) + 500);
    const due = [...(next?.ms === null || next?.ms === undefined ? [] : [Number(next.ms) + 500]), ...lapses];
    const step = due.length ? Math.min(...due) : 5 * 60_000;
    await shiftTime(run, Math.max(1000, step));
    // Messages a dead consumer held come back once their visibility lapses.
    for (const m of [...run.heldMessages]) {
      if (elapsed(run) - m.at >= VISIBILITY_MS) {
        await lapseVisibility(world, m.receiptHandle);
        run.heldMessages.splice(run.heldMessages.indexOf(m), 1);
      }
    }
    await sweepStalledDeliveries(world.db);
    // A retry the consumer itself scheduled on SQS (DelaySeconds) cannot be hurried: give it real time.
    const attrs = await sharedSqsClient(world.env).send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl(world.env, "publication.publish"), AttributeNames: ["ApproximateNumberOfMessagesDelayed"] }),
    );
    if (Number(attrs.Attributes?.ApproximateNumberOfMessagesDelayed ?? 0) > 0 && round % 4 === 3) await new Promise((r) => setTimeout(r, 1000));
  }
}

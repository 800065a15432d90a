import { inOneTransactionNamed } from "../db/batch";
import type { Database } from "../db/client";
import type { Env } from "../env";
import type { StepsFinish } from "../jobs/consumer";
import { deliverClaimed, type CommitPublished } from "./deliver";
import { convergeIfUnchanged, settleLocked, settleReads, type SettleRead } from "./settle";
import { claimRenditions, dueRenditions, type Claim, type DueRenditions, type PublishedGroup } from "./store";

/**
 * Renditions go to different destinations and each is claimed under its own lease, so they are delivered side
 * by side, a few at a time (a Worker invocation keeps at most six connections open at once).
 */
const DELIVERIES_AT_ONCE = 4;

/**
 * One publish job: deliver every rendition that is due, then settle the publication: it converges (published,
 * partially published, failed, or draft when a cancel left nothing posted), or, while some rendition waits for a
 * retry or a lease, stays publishing with one follow-up job queued for when the earliest is due. The usual
 * settling update is answered rather than sent, for the job's receipt to commit with it (lib/jobs/consumer.ts).
 */
export async function processPublication(db: Database, env: Env, publicationId: string, jobId: string, read?: DueRenditions): Promise<StepsFinish | undefined> {
  const due = read ?? (await dueRenditions(db, publicationId));
  const outcomes = groupCommit(db, publicationId, due.length);
  const deliver = async (claim: Claim) => {
    await deliverClaimed(db, env, claim, outcomes.commit);
    outcomes.ended(claim.id);
  };
  // Every lane's first rendition is claimed in one request; a lane that frees claims its next on its own.
  const lanes =
    due.length === 0
      ? []
      : await claimRenditions(
          db,
          due.slice(0, DELIVERIES_AT_ONCE).map((r) => r.id),
          jobId,
        );
  let next = lanes.length;
  const lane = async (first: Claim) => {
    await deliver(first);
    while (next < due.length) await deliver((await claimRenditions(db, [due[next++].id], jobId))[0]);
  };
  await Promise.all(lanes.map(lane));
  return settleAfterJob(db, publicationId, outcomes.settleRead());
}

/** The settling a job ends with: the conditional update for its receipt's request, or the locked path now. */
export async function settleAfterJob(db: Database, publicationId: string, read?: SettleRead): Promise<StepsFinish | undefined> {
  const [current] = read ? [read] : await inOneTransactionNamed(db, (q) => [settleReads(q, publicationId)]);
  const converge = convergeIfUnchanged(publicationId, current);
  if (!converge) {
    await settleLocked(db, publicationId);
    return undefined;
  }
  return { statements: (q) => [converge.update(q), ...converge.events], receiptIf: converge.settled, otherwise: () => settleLocked(db, publicationId) };
}

/**
 * A job's published outcomes, group-committed: an outcome ready while another's request is in flight waits and
 * goes with every other waiting one in the next request, one transaction (if it fails, each delivery takes its
 * own failure path, as alone). The request that carries the job's last open delivery also reads what settling
 * needs. `deliveries` is how many the job runs; each must report `ended`, so the last is known.
 */
function groupCommit(db: Database, publicationId: string, deliveries: number) {
  let open = deliveries;
  let sending = false;
  let waiting: { id: string; group: PublishedGroup; resolve(held: boolean): void; reject(error: unknown): void }[] = [];
  const committed = new Set<string>();
  let read: SettleRead | undefined;

  async function sendWaiting(): Promise<void> {
    sending = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      // Every delivery still open is in this batch: nothing commits after it, so it reads what settling needs.
      const last = open === batch.length;
      try {
        const results = await inOneTransactionNamed(db, (q) => [...batch.map((o) => o.group), ...(last ? [settleReads(q, publicationId)] : [])]);
        open -= batch.length;
        for (const o of batch) committed.add(o.id);
        if (last) read = results[results.length - 1] as SettleRead;
        batch.forEach((o, i) => o.resolve((results[i] as { published: unknown[] }).published.length > 0));
      } catch (error) {
        for (const o of batch) o.reject(error);
      }
    }
    sending = false;
  }

  const commit: CommitPublished = (id, group) =>
    new Promise<boolean>((resolve, reject) => {
      waiting.push({ id, group, resolve, reject });
      if (!sending) void sendWaiting();
    });

  return {
    commit,
    /** A delivery has returned: unless its outcome committed here, it is no longer open. */
    ended(renditionId: string) {
      if (!committed.has(renditionId)) open--;
    },
    settleRead: () => read,
  };
}

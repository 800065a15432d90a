import { inOneTransaction, type BatchItem } from "../db/batch";
import type { Database } from "../db/client";
import type { OutcomeSender } from "./deliver-rendition";
import { settleReads, type SettleRead } from "./settle";

/**
 * A job's published outcomes, group-committed: an outcome ready while another's request is in flight waits
 * for it and goes with every other waiting one in the next request, one transaction (a failure fails each of
 * them, and each then takes its own guarded failure path, as alone). The request that carries the job's last
 * open delivery also reads what settling needs, after those writes (lib/publishing/settle.ts).
 *
 * `deliveries` is how many the job will run; each that ends without committing here (skipped, failed) must
 * be reported with `ended`, so the last is known: a group is last when no other delivery is still open.
 */
export function outcomeBatch(db: Database, publicationId: string, deliveries: number) {
  let open = deliveries;
  let sending = false;
  let waiting: { id: string; build: Parameters<OutcomeSender>[1]; resolve(): void; reject(error: unknown): void }[] = [];
  const committed = new Set<string>();
  let read: SettleRead | undefined;

  async function sendWaiting(): Promise<void> {
    sending = true;
    while (waiting.length > 0) {
      const group = waiting;
      waiting = [];
      try {
        let reads = 0;
        const results = await inOneTransaction(db, (q) => {
          const statements: BatchItem[] = group.flatMap((o) => o.build(q));
          // Every delivery still open is in this group: nothing commits after it.
          const last = open === group.length ? [...settleReads(q, publicationId)] : [];
          reads = last.length;
          return [...statements, ...last];
        });
        open -= group.length;
        for (const o of group) committed.add(o.id);
        if (reads > 0) read = results.slice(results.length - reads) as unknown as SettleRead;
        for (const o of group) o.resolve();
      } catch (error) {
        for (const o of group) o.reject(error);
      }
    }
    sending = false;
  }

  const send: OutcomeSender = (id, build) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ id, build, resolve, reject });
      if (!sending) void sendWaiting();
    });

  return {
    send,
    /** A delivery has returned: unless its outcome committed here, it is no longer open. */
    ended(renditionId: string) {
      if (!committed.has(renditionId)) open--;
    },
    /** What settling needs, when the last group read it. */
    settleRead: () => read,
  };
}

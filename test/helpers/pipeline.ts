import { eq, isNull } from "drizzle-orm";
import { outboxJobs, publications, renditions } from "../../db/schema";
import { drainQueue } from "../../lib/jobs/consumer";
import { relayOutbox } from "../../lib/jobs/outbox";
import { publish } from "../../queues/publish";
import { env, withDb } from "./harness";

/**
 * Run the real pipeline (outbox relay → SQS → publish consumer) until the publication leaves
 * `publishing` or `until` holds. Other tests' jobs share the queue and are processed too.
 */
export async function runPipeline(publicationId: string, opts: { until?: (status: string) => boolean; timeoutMs?: number; env?: typeof env } = {}) {
  const e = opts.env ?? env;
  const until = opts.until ?? ((s: string) => s !== "publishing");
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  for (;;) {
    // Publish jobs only: other test files run their own kinds on queues of their own.
    await withDb((db) => relayOutbox(db, e, { kinds: ["publication.publish"] }));
    await drainQueue(e, publish, { waitSeconds: 0, budgetMs: 2000 });
    const status = await publicationStatus(publicationId);
    if (until(status)) return status;
    if (Date.now() > deadline) throw new Error(`publication still ${status} after ${opts.timeoutMs ?? 20_000} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const publicationStatus = (id: string) =>
  withDb(async (db) => (await db.select({ s: publications.status }).from(publications).where(eq(publications.id, id)))[0]?.s);

/** Let time pass for one publication: its waiting renditions and scheduled follow-up jobs become due now. */
export async function makeDueNow(publicationId: string) {
  await withDb(async (db) => {
    await db.update(renditions).set({ nextAttemptAt: new Date() }).where(eq(renditions.publicationId, publicationId));
    const pending = await db.select().from(outboxJobs).where(isNull(outboxJobs.sentAt));
    for (const job of pending) {
      if ((job.payload as { publication_id?: string }).publication_id === publicationId) {
        await db.update(outboxJobs).set({ nextAttemptAt: new Date() }).where(eq(outboxJobs.id, job.id));
      }
    }
  });
}

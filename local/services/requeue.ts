import { sql } from "drizzle-orm";
import "../../lib/db/node";
import { openDb } from "../../lib/db/client";
import type { Env } from "../../lib/env";

/**
 * The embedded SQS (local-aws-sqs) keeps its messages in memory only, so whatever was queued when
 * `npm start` stopped is gone after a restart. Call this at start, with the embedded SQS only (a real
 * SQS keeps its messages): every outbox job that was sent but has no row in `job_receipts` (never
 * completed, never given up) goes back to unsent, and the outbox relay sends it again.
 *
 * Safe because delivery is at least once anyway: a job that did complete has a receipt and is left
 * alone, and should one be sent twice, consumers recognise its job id and do nothing the second time.
 * Returns how many jobs were put back.
 */
export async function requeueUnfinishedJobs(env: Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY">): Promise<number> {
  const { db, close } = openDb(env);
  try {
    const result = await db.execute(sql`
      update outbox_jobs o
         set sent_at = null, next_attempt_at = now(), state = 'pending', updated_at = now()
       where o.sent_at is not null
         and o.state not in ('done', 'dead')
         and not exists (select 1 from job_receipts r where r.job_id = o.id)`);
    return result.rowCount ?? 0;
  } finally {
    await close();
  }
}

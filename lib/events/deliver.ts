import type { Database } from "../db/client";
import type { Env } from "../env";
import type { EventDeliverPayload } from "../jobs/kinds";
import { logEvent } from "../log";
import { decryptJson } from "../secrets";
import { decide } from "./rules";
import { sendEvent } from "./send";
import { claimDelivery, dueDeliveries, readEvent, recordOutcome } from "./store";
import type { EventEnvelope, EventType } from "./types";

/** Endpoints are different receivers: a few are sent to side by side (a Worker keeps six connections at most). */
const SENDS_AT_ONCE = 4;

/** The body every endpoint receives for an event: the same bytes on every attempt. */
export function envelopeOf(event: { id: string; type: string; workspaceId: string; data: Record<string, unknown>; createdAt: Date }): EventEnvelope {
  return { id: event.id, type: event.type as EventType, created_at: event.createdAt.toISOString(), workspace_id: event.workspaceId, data: event.data };
}

/**
 * One `event.deliver` job: every due delivery of the event (or the one it names) is taken for an attempt, sent,
 * and its outcome recorded; a retry is a new job at the database's time. Safe to run again: what is not due, is
 * held by another attempt or has ended is left alone. Logs carry ids and codes only.
 */
export async function deliverEvent(db: Database, env: Env, job: EventDeliverPayload): Promise<void> {
  const due = await dueDeliveries(db, job);
  if (due.length === 0) return;
  const [event] = await readEvent(db, job.event_id);
  if (!event) return; // its workspace was deleted meanwhile
  const body = JSON.stringify(envelopeOf(event));
  const allowPrivateUrls = env.ALLOW_PRIVATE_URLS === "true";
  let next = 0;
  const lane = async () => {
    while (next < due.length) {
      const c = await claimDelivery(db, due[next++]);
      if (!c) continue; // another attempt holds it, or it ended meanwhile
      const { secret } = await decryptJson<{ secret: string }>(env.INSTANCE_SECRET_KEY ?? "", c.secretCiphertext);
      const result = await sendEvent(c.url, secret, event.id, body, { allowPrivateUrls });
      const decision = decide(result, c.roundAttempts);
      await recordOutcome(db, c, event.id, result, decision);
      logEvent(result.ok ? "info" : "warn", "event delivery attempt", {
        event_id: event.id,
        delivery_id: c.id,
        endpoint_id: c.endpointId,
        attempt: c.attempts,
        status_code: result.statusCode,
        error_code: result.ok ? null : result.errorCode,
        outcome: decision.status,
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(SENDS_AT_ONCE, due.length) }, lane));
}

import { and, eq, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { outboundEvents, outboxJobs, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, type WebhookDeliveryStatus } from "../../db/schema";
import { inOneTransaction, type BatchItem } from "../db/batch";
import type { Database, Queryable } from "../db/client";
import { insertWhere } from "../db/insert-where";
import { newId } from "../ids";
import { outboxRow } from "../jobs/outbox";
import type { EventDeliverPayload } from "../jobs/kinds";
import { MAX_ATTEMPTS } from "../jobs/retry-policy";
import { ATTEMPT_LEASE_SECONDS, DISABLE_AFTER_FAILED_DELIVERIES, disabledReason, type AttemptResult, type DeliveryDecision } from "./rules";

/**
 * What event deliveries write. Every time that decides (due, lease, retry) is the database's `now()`. An attempt
 * takes its delivery by compare-and-set (due, not held by a live lease), which counts the attempt; its outcome
 * applies only while the delivery still carries that attempt's number, so a redelivered job message, a second
 * consumer or a late writer neither sends twice at once nor counts an attempt twice.
 */

const d = webhookDeliveries;
const notHeld = or(isNull(d.leaseUntil), lt(d.leaseUntil, sql`now()`));
const ofJob = (p: EventDeliverPayload) => and(eq(d.eventId, p.event_id), p.delivery_id ? eq(d.id, p.delivery_id) : undefined);

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  attempts: number;
  roundAttempts: number;
  startedAt: Date;
  url: string;
  secretCiphertext: string;
}

const claimable = and(inArray(d.status, ["pending", "retrying", "sending"]), lte(d.nextAttemptAt, sql`now()`), notHeld, lt(d.roundAttempts, MAX_ATTEMPTS));

/**
 * The job's deliveries due now, after ending those that can have no further attempt. Each is then claimed on its
 * own just before it is sent (claimDelivery), so a lease never runs while a delivery waits for its turn.
 */
export async function dueDeliveries(db: Database, p: EventDeliverPayload): Promise<string[]> {
  const [, , due] = await inOneTransaction(db, (q) => [
    // An attempt that never reported (its Worker died) on the round's last try: the round is over.
    q
      .update(d)
      .set({ status: "failed", lastErrorCode: sql`coalesce(${d.lastErrorCode}, 'no_outcome')`, leaseUntil: null, updatedAt: sql`now()` })
      .where(and(ofJob(p), eq(d.status, "sending"), notHeld, sql`${d.roundAttempts} >= ${MAX_ATTEMPTS}`)),
    // A disabled endpoint receives nothing more.
    q
      .update(d)
      .set({ status: "failed", lastErrorCode: "endpoint_disabled", leaseUntil: null, updatedAt: sql`now()` })
      .where(
        and(
          ofJob(p),
          inArray(d.status, ["pending", "retrying", "sending"]),
          notHeld,
          sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${d.endpointId} and ${webhookEndpoints.disabledAt} is not null)`,
        ),
      ),
    q
      .select({ id: d.id })
      .from(d)
      .where(and(ofJob(p), claimable))
      .orderBy(d.id),
  ]);
  return due.map((r) => r.id);
}

/** Take one delivery for an attempt (compare-and-set: still due, not held, endpoint enabled); undefined when another has it. */
export async function claimDelivery(db: Database, id: string): Promise<ClaimedDelivery | undefined> {
  const [claimed] = await db
    .update(d)
    .set({
      status: "sending",
      attempts: sql`${d.attempts} + 1`,
      roundAttempts: sql`${d.roundAttempts} + 1`,
      leaseUntil: sql`now() + make_interval(secs => ${ATTEMPT_LEASE_SECONDS})`,
      lastAttemptAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .from(webhookEndpoints)
    .where(and(eq(d.id, id), eq(webhookEndpoints.id, d.endpointId), isNull(webhookEndpoints.disabledAt), claimable))
    .returning({
      id: d.id,
      endpointId: d.endpointId,
      attempts: d.attempts,
      roundAttempts: d.roundAttempts,
      startedAt: d.lastAttemptAt,
      url: webhookEndpoints.url,
      secretCiphertext: webhookEndpoints.secretCiphertext,
    });
  return claimed ? { ...claimed, startedAt: claimed.startedAt ?? new Date() } : undefined;
}

export const readEvent = (db: Database, eventId: string) => db.select().from(outboundEvents).where(eq(outboundEvents.id, eventId)).limit(1);

/** This attempt's outcome is on the row (its number, and the status it just set in this transaction). */
const outcomeApplied = (c: ClaimedDelivery, status: WebhookDeliveryStatus): SQL =>
  sql`exists (select 1 from ${d} where ${d.id} = ${c.id} and ${d.attempts} = ${c.attempts} and ${d.status} = ${status} and ${d.updatedAt} = now()::timestamptz(3))`;

/**
 * Record an attempt's outcome, fenced by its number: the delivery's status, the attempt in the log, and then the
 * follow-up: a retry job (by the database's clock), or the endpoint's run of failures (reset when delivered;
 * at the threshold the endpoint is disabled with the reason).
 */
export async function recordOutcome(db: Database, c: ClaimedDelivery, eventId: string, result: AttemptResult, decision: DeliveryDecision): Promise<void> {
  const statusCode = result.statusCode;
  const errorCode = result.ok ? null : result.errorCode;
  const applied = outcomeApplied(c, decision.status);
  const e = webhookEndpoints;
  const next = decision.status === "retrying" ? decision.retryInSeconds : 0;
  const followUp = (q: Queryable): BatchItem[] =>
    decision.status === "retrying"
      ? [insertWhere(outboxJobs, outboxRow("event.deliver", null, { event_id: eventId, delivery_id: c.id }, { delaySeconds: next }), applied)]
      : decision.status === "delivered"
        ? [
            q
              .update(e)
              .set({ consecutiveFailures: 0 })
              .where(and(eq(e.id, c.endpointId), applied)),
          ]
        : [
            q
              .update(e)
              .set({
                consecutiveFailures: sql`${e.consecutiveFailures} + 1`,
                disabledAt: sql`case when ${e.consecutiveFailures} + 1 >= ${DISABLE_AFTER_FAILED_DELIVERIES} then coalesce(${e.disabledAt}, now()) else ${e.disabledAt} end`,
                disabledReason: sql`case when ${e.consecutiveFailures} + 1 >= ${DISABLE_AFTER_FAILED_DELIVERIES} then coalesce(${e.disabledReason}, ${disabledReason(result)}) else ${e.disabledReason} end`,
              })
              .where(and(eq(e.id, c.endpointId), applied)),
          ];
  await inOneTransaction(db, (q) => [
    q
      .update(d)
      .set({
        status: decision.status,
        lastStatusCode: statusCode,
        lastErrorCode: errorCode,
        leaseUntil: null,
        nextAttemptAt: sql`now() + make_interval(secs => ${next})`,
        deliveredAt: decision.status === "delivered" ? sql`now()` : undefined,
        updatedAt: sql`now()`,
      })
      .where(and(eq(d.id, c.id), eq(d.attempts, c.attempts), eq(d.status, "sending"))),
    sql`${insertWhere(webhookDeliveryAttempts, { id: newId("wha"), deliveryId: c.id, number: c.attempts, statusCode, errorCode, startedAt: c.startedAt }, applied)} on conflict do nothing`,
    ...followUp(q),
  ]);
}

/** The job was given up (lib/jobs/consumer.ts): its deliveries not yet ended end `failed`, none left waiting. */
export async function giveUpDeliveries(db: Database, p: EventDeliverPayload): Promise<void> {
  await db
    .update(d)
    .set({ status: "failed", lastErrorCode: sql`coalesce(${d.lastErrorCode}, 'gave_up')`, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(ofJob(p), inArray(d.status, ["pending", "retrying", "sending"]), notHeld));
}

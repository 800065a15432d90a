import { asc, eq, inArray } from "drizzle-orm";
import { outboundEvents, webhookDeliveries, webhookDeliveryAttempts } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import { presentDelivery } from "./present";

/** Deliveries as answered: each with its event's type and its attempts, read in one more statement for the page. */
export async function presentDeliveries(q: Queryable, rows: { delivery: typeof webhookDeliveries.$inferSelect; eventType: string }[]) {
  const attempts = rows.length
    ? await q
        .select()
        .from(webhookDeliveryAttempts)
        .where(
          inArray(
            webhookDeliveryAttempts.deliveryId,
            rows.map((r) => r.delivery.id),
          ),
        )
        .orderBy(asc(webhookDeliveryAttempts.number))
    : [];
  return rows.map((r) =>
    presentDelivery(
      r.delivery,
      r.eventType,
      attempts.filter((a) => a.deliveryId === r.delivery.id),
    ),
  );
}

/** A delivery with its event's type, for presentDeliveries. */
export const deliveryWithType = (q: Queryable) =>
  q
    .select({ delivery: webhookDeliveries, eventType: outboundEvents.type })
    .from(webhookDeliveries)
    .innerJoin(outboundEvents, eq(outboundEvents.id, webhookDeliveries.eventId));

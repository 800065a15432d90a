import { eq } from "drizzle-orm";
import { subscriptions } from "../../db/schema";
import type { Database } from "../db/client";
import { DomainError } from "../errors";
import { currentSubscription } from "./organizations";
import { chargedByStripe, setCancelAtPeriodEnd } from "./provider-subscription";
import type { StripeConfig } from "./settings";
import { applySubscription } from "./stripe-events";

type SubscriptionRow = typeof subscriptions.$inferSelect;

/**
 * POST /billing/cancel and /billing/resume: ask Stripe to end the organization's paid subscription at its period end
 * (`cancel`), or to keep renewing it, then record what Stripe answers. The Idempotency-Key names the subscription and
 * its last change, so a retried request never sends a second, different change.
 */
export async function setRenewal(db: Database, stripe: StripeConfig, organizationId: string, cancel: boolean): Promise<SubscriptionRow> {
  const current = await currentSubscription(db, organizationId);
  if (!chargedByStripe(current)) {
    throw new DomainError("conflict", "The organization has no subscription paid through the payment provider to cancel or resume.");
  }
  const key = `herald-${cancel ? "cancel" : "resume"}-${current.id}-${current.updatedAt.getTime()}`;
  const state = await setCancelAtPeriodEnd(stripe, current.providerSubscriptionId, cancel, key);
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, current.id)).for("update");
    await applySubscription(tx, row, state, Math.floor((row.providerEventAt?.getTime() ?? 0) / 1000));
    const [after] = await tx.select().from(subscriptions).where(eq(subscriptions.id, current.id));
    return after;
  });
}

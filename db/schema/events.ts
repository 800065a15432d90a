import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users, workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * Outbound events (CONTRACT §9 Integrations): an admin's endpoint, subscribed to some event types. The signing
 * secret is sealed (lib/secrets.ts) and shown only when created. An endpoint whose deliveries keep failing is
 * disabled (`disabled_at`, `disabled_reason`) and receives nothing more until made again.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    secretCiphertext: text("secret_ciphertext").notNull(),
    /** Deliveries that ended `failed` since the last one delivered; at the threshold the endpoint is disabled. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    disabledAt: ts("disabled_at"),
    disabledReason: text("disabled_reason"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_workspace_idx").on(t.workspaceId, t.createdAt, t.id)],
);

/**
 * An event, written in the transaction of the change that caused it, and only when some enabled endpoint of
 * its workspace subscribes to its type. Its id is the `webhook-id` of every delivery of it.
 */
export const outboundEvents = pgTable(
  "outbound_events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  // The retention sweep (lib/retention/history.ts) removes them by age, their deliveries and attempts with them.
  (t) => [index("outbound_events_created_idx").on(t.createdAt)],
);

export type WebhookDeliveryStatus = "pending" | "sending" | "retrying" | "delivered" | "failed";

/**
 * One event to one endpoint. `attempts` counts every attempt (redeliveries included), `round_attempts` those of
 * the current round (at most 8, CONTRACT §4). An attempt claims the row under a lease (`status = sending`,
 * `lease_until`) by compare-and-set; its outcome applies only while `attempts` is still its number.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => outboundEvents.id, { onDelete: "cascade" }),
    status: text("status").$type<WebhookDeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    roundAttempts: integer("round_attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
    leaseUntil: ts("lease_until"),
    lastStatusCode: integer("last_status_code"),
    lastErrorCode: text("last_error_code"),
    lastAttemptAt: ts("last_attempt_at"),
    deliveredAt: ts("delivered_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_endpoint_key").on(t.eventId, t.endpointId),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt.desc(), t.id.desc()),
  ],
);

/** Each attempt's answer, for the delivery log: the status code, or an error code when there was no answer. */
export const webhookDeliveryAttempts = pgTable(
  "webhook_delivery_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    statusCode: integer("status_code"),
    errorCode: text("error_code"),
    startedAt: ts("started_at").notNull(),
    finishedAt: ts("finished_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("webhook_delivery_attempts_number_key").on(t.deliveryId, t.number)],
);

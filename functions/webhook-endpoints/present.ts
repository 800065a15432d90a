import type { outboundEvents, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from "../../db/schema";
import type { EventType } from "../../lib/events/types";

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

/** The attempts shown per delivery: the latest, which say what is happening now. */
const SHOWN_ATTEMPTS = 20;

export const presentEndpoint = (row: EndpointRow) => ({
  id: row.id,
  workspace_id: row.workspaceId,
  url: row.url,
  events: row.events as EventType[],
  created_at: row.createdAt.toISOString(),
  disabled_at: row.disabledAt?.toISOString() ?? null,
  disabled_reason: row.disabledReason,
});

const waiting = new Set(["pending", "retrying"]);

export const presentDelivery = (row: DeliveryRow, eventType: (typeof outboundEvents.$inferSelect)["type"], attempts: AttemptRow[]) => ({
  id: row.id,
  endpoint_id: row.endpointId,
  event_id: row.eventId,
  event_type: eventType as EventType,
  status: row.status,
  attempts: row.attempts,
  last_status_code: row.lastStatusCode,
  last_error_code: row.lastErrorCode,
  created_at: row.createdAt.toISOString(),
  last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
  next_attempt_at: waiting.has(row.status) ? row.nextAttemptAt.toISOString() : null,
  delivered_at: row.deliveredAt?.toISOString() ?? null,
  attempt_log: attempts.slice(-SHOWN_ATTEMPTS).map((a) => ({
    number: a.number,
    status_code: a.statusCode,
    error_code: a.errorCode,
    started_at: a.startedAt.toISOString(),
    finished_at: a.finishedAt.toISOString(),
  })),
});

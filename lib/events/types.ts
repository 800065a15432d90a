/** The outbound event types (CONTRACT §9 Integrations) an endpoint may subscribe to. */
export const EVENT_TYPES = [
  "publication.published",
  "publication.partially_published",
  "publication.failed",
  "rendition.failed",
  "build.completed",
  "build.failed",
  "account.reconnect_required",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/** The body every endpoint receives; `data` holds ids, statuses and titles only, never tokens or content. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  workspace_id: string;
  data: Record<string, unknown>;
}

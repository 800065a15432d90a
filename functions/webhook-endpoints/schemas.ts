import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { EVENT_TYPES } from "../../lib/events/types";
import { MAX_URL_LENGTH } from "../../lib/net/outbound-url";
import { IdParam, OptionalTimestamp, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";

export const EventTypeField = z.enum(EVENT_TYPES).openapi({ description: "An outbound event type" });

export const CreateWebhookEndpointRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    url: z
      .string()
      .min(1)
      .max(MAX_URL_LENGTH)
      .openapi({ description: "Where events are POSTed: http(s); loopback and private addresses only when the instance sets ALLOW_PRIVATE_URLS" }),
    events: z
      .array(EventTypeField)
      .min(1)
      .max(EVENT_TYPES.length)
      .refine((events) => new Set(events).size === events.length, { message: "Each event type at most once" })
      .openapi({ description: "The event types sent to this endpoint" }),
  })
  .openapi("CreateWebhookEndpointRequest");

export const UpdateWebhookEndpointRequest = z
  .object({
    url: CreateWebhookEndpointRequest.shape.url.optional(),
    events: CreateWebhookEndpointRequest.shape.events.optional(),
    enabled: z.boolean().optional().openapi({ description: "`true` enables a disabled endpoint again (its run of failures starts over); `false` disables it" }),
  })
  .refine((body) => body.url !== undefined || body.events !== undefined || body.enabled !== undefined, { message: "Give url, events or enabled" })
  .openapi("UpdateWebhookEndpointRequest");

const endpointFields = {
  id: z.string(),
  workspace_id: z.string(),
  url: z.string(),
  events: z.array(EventTypeField),
  created_at: Timestamp,
  disabled_at: OptionalTimestamp.openapi({ description: "When Herald stopped sending to it (null while enabled)" }),
  disabled_reason: z.string().nullable().openapi({ description: "Why it was disabled, for the workspace's admins" }),
};

/** An endpoint as listed: never its secret. */
export const WebhookEndpoint = responseObject("WebhookEndpoint", endpointFields);

/** An endpoint as created: the only answer that carries its signing secret. */
export const CreatedWebhookEndpoint = responseObject("CreatedWebhookEndpoint", {
  ...endpointFields,
  secret: z.string().openapi({ description: "The Standard Webhooks signing secret (`whsec_…`), shown only in this answer" }),
});

export const WebhookDeliveryAttempt = z
  .object({
    number: z.number().int(),
    status_code: z.number().int().nullable().openapi({ description: "The endpoint's HTTP status, null when it gave none" }),
    error_code: z.string().nullable().openapi({ description: "Why the attempt failed (`http_500`, `timeout`, `network_error`, `url_refused`, …)" }),
    started_at: Timestamp,
    finished_at: Timestamp,
  })
  .openapi("WebhookDeliveryAttempt");

export const WebhookDelivery = responseObject("WebhookDelivery", {
  id: z.string(),
  endpoint_id: z.string(),
  event_id: z.string().openapi({ description: "Also the `webhook-id` of every attempt" }),
  event_type: EventTypeField,
  status: z.enum(["pending", "sending", "retrying", "delivered", "failed"]),
  attempts: z.number().int().openapi({ description: "Attempts so far, redeliveries included" }),
  last_status_code: z.number().int().nullable(),
  last_error_code: z.string().nullable(),
  created_at: Timestamp,
  last_attempt_at: OptionalTimestamp,
  next_attempt_at: OptionalTimestamp.openapi({ description: "When the next attempt is due, while one is to come" }),
  delivered_at: OptionalTimestamp,
  attempt_log: z.array(WebhookDeliveryAttempt).openapi({ description: "The most recent attempts (up to 20), oldest first" }),
});

export const EndpointIdParams = z.object({ id: IdParam.openapi({ description: "Webhook endpoint ID" }) });
export const DeliveryParams = z.object({
  id: IdParam.openapi({ description: "Webhook endpoint ID" }),
  delivery_id: IdParam.openapi({ description: "Delivery ID" }),
});

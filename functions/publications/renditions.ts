import { z } from "@hono/zod-openapi";
import { RECOVERY_ACTIONS } from "../../lib/delivery/rules";
import { JsonMap, OptionalTimestamp } from "../../lib/schemas/common";
import { PublicationMedia } from "./media";

/** SPEC.md 2.5 Delivery: where a rendition's delivery to its platform stands. */
export const Delivery = z
  .object({
    state: z.string(),
    target_key: z.string(),
    current_attempt_id: z.string().nullable(),
    current_attempt_number: z.number().int().nullable(),
    current_attempt_created_at: OptionalTimestamp,
    error_code: z.string().nullable(),
    error_kind: z.string().nullable(),
    error_http_status: z.number().int().nullable(),
    external_id: z.string().nullable(),
    external_url: z.string().nullable(),
    last_reconciled_at: OptionalTimestamp,
    next_reconciliation_at: OptionalTimestamp,
    terminal_reason: z.string().nullable(),
    recovery_action: z
      .string()
      .max(100)
      .openapi({
        description: `What a person can do to recover a failed delivery: ${RECOVERY_ACTIONS.map((a) => `\`${a}\``).join(", ")} (SPEC lists \`none\`; other values may appear). \`verify_on_platform\`: Herald could not confirm whether the last attempt went out; look at the account before publishing again.`,
        example: "none",
      }),
  })
  .openapi("Delivery");

/** The error members shared by renditions and their segments. */
const errorFields = {
  error_action: z.string().nullable(),
  error_code: z.string().nullable(),
  error_kind: z.string().nullable(),
  error_message: z.string().nullable(),
  error_http_status: z.number().int().nullable(),
  error_retry_at: OptionalTimestamp,
};

/** SPEC.md 2.5 RenditionSegment: one post of a rendition (a thread has several). */
export const RenditionSegment = z
  .object({
    id: z.string(),
    publication_segment_id: z.string().nullable(),
    position: z.number().int(),
    status: z.string(),
    title: z.string().nullable(),
    title_override: z.string().nullable(),
    body: z.string(),
    body_override: z.string().nullable(),
    description: z.string().nullable(),
    description_override: z.string().nullable(),
    url: z.string().nullable(),
    url_override: z.string().nullable(),
    media: z.array(PublicationMedia),
    media_inherited: z.boolean(),
    settings: JsonMap,
    external_id: z.string().nullable(),
    external_url: z.string().nullable(),
    ...errorFields,
  })
  .openapi("RenditionSegment");

/** SPEC.md 2.5 Rendition: the publication as shaped for one destination account. */
export const Rendition = z
  .object({
    id: z.string(),
    publication_id: z.string(),
    social_account_id: z.string(),
    platform: z.string(),
    target_key: z.string(),
    profile: z.string().nullable(),
    output_profile: z.string().nullable(),
    status: z.string(),
    title: z.string().nullable(),
    body: z.string(),
    description: z.string().nullable(),
    schedule_override: z.string().nullable(),
    format_locked: z.boolean(),
    media: z.array(PublicationMedia),
    segments: z.array(RenditionSegment),
    settings: JsonMap,
    delivery: Delivery,
    external_id: z.string().nullable(),
    external_url: z.string().nullable(),
    error_retryable: z.boolean(),
    ...errorFields,
  })
  .openapi("Rendition");

import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { JsonMap, OptionalTimestamp, orNull, Timestamp } from "../../lib/schemas/common";
import { RepostRule } from "../../lib/schemas/repost-rule";
import { PublicationMedia } from "./media";
import { Delivery, Rendition } from "./renditions";

/** CONTRACT.md §5: the publication statuses and the activity buckets they fall in. */
export const PUBLICATION_STATUSES = ["draft", "scheduled", "publishing", "published", "partially_published", "failed"] as const;
export const ACTIVITY_BUCKETS = ["scheduled", "published", "failed", "draft"] as const;

export const PublicationStatus = z.enum(PUBLICATION_STATUSES);

/** SPEC.md 2.5 PublicationSegment: one part of the source content (a thread has several). */
export const PublicationSegment = z
  .object({
    id: z.string(),
    position: z.number().int(),
    title: z.string().nullable(),
    body: z.string(),
    description: z.string().nullable(),
    url: z.string().nullable(),
    media: z.array(PublicationMedia),
    settings: JsonMap,
  })
  .openapi("PublicationSegment");

/** SPEC.md 2.5 RepostOverride: a publication's own repost behaviour. */
export const RepostOverride = z
  .object({
    mode: z
      .enum(["inherit", "custom", "off"])
      .openapi({ description: "`inherit`: the workspace's policies apply; `custom`: `rule` and `target_account_ids` instead; `off`: never reposted" }),
    rule: orNull(RepostRule).openapi({ description: "The publication's own rule (custom); null otherwise" }),
    target_account_ids: z.array(z.string()),
  })
  .openapi("RepostOverride");

/** SPEC.md 2.5 PublicationResponse. */
export const PublicationResponse = responseObject("PublicationResponse", {
  id: z.string().openapi({ example: "pub_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  revision: z.number().int(),
  status: PublicationStatus,
  title: z.string().nullable(),
  source_text: z.string(),
  source_url: z.string().nullable(),
  intent: z.string().nullable(),
  goal: z.string().nullable(),
  audience: z.string().nullable(),
  content_profile: z.string().nullable(),
  creation_preset: z.string().nullable(),
  social_set_id: z.string().nullable(),
  metadata: JsonMap,
  media: z.array(PublicationMedia),
  segments: z.array(PublicationSegment),
  renditions: z.array(Rendition),
  repost_override: RepostOverride,
  random_delay_inherited: z.boolean(),
  random_delay_minutes: z.number().int(),
  scheduled_at: OptionalTimestamp,
  actual_run_at: OptionalTimestamp,
  failure_dismissed_at: OptionalTimestamp,
  created_by: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** A rendition as an action reports it. */
export const ActionRendition = z
  .object({
    id: z.string(),
    platform: z.string(),
    social_account_id: z.string(),
    status: z.string(),
    target_key: z.string(),
    delivery: Delivery,
  })
  .openapi("ActionRendition");

/** SPEC.md 2.5 ActionOutputBody: the result of publish-now and delete. */
export const ActionOutputBody = responseObject("ActionOutputBody", {
  publication_id: z.string(),
  revision: z.number().int(),
  message: z.string(),
  job_id: z.string().nullable().openapi({ description: "The queued job, when the action queued one" }),
  activation_publication_id: z.string().nullable(),
  workspace_activated: z.boolean(),
  renditions: z.array(ActionRendition),
});

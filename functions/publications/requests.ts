import { z } from "@hono/zod-openapi";
import { BoundedJsonMap, DateTimeParam, IdParam, RevisionField } from "../../lib/schemas/common";
import { RepostOverrideInput } from "../../lib/schemas/repost-rule";

/**
 * CONTRACT.md §5: the fields POST /publications takes and PUT /publications/{id} may change. PUT
 * changes only the members it is given (CONTRACT.md §6).
 */
const SegmentInput = z
  .object({
    title: z.string().max(500).optional(),
    body: z.string().max(50_000),
    url: z.httpUrl().max(2048).optional(),
  })
  .openapi("PublicationSegmentInput");

export const DestinationInput = z
  .object({
    social_account_id: IdParam,
    title: z.string().max(500).optional(),
    body: z.string().max(50_000).optional(),
    segments: z.array(SegmentInput).min(1).max(100).optional().openapi({ description: "Explicit posts; split from source_text when left out" }),
  })
  .openapi("PublicationDestinationInput");

export const publicationFields = {
  title: z.string().max(500).nullable(),
  source_text: z.string().max(50_000),
  scheduled_at: DateTimeParam.nullable().openapi({ description: "RFC 3339; null or absent keeps a draft" }),
  media_ids: z.array(IdParam).max(50),
  random_delay_minutes: z.number().int().min(0).max(1440),
  metadata: BoundedJsonMap(16_384),
  destinations: z.array(DestinationInput).max(50),
  repost_override: RepostOverrideInput.openapi({
    description:
      "How the published posts are reposted: `inherit` the workspace's policies, a `custom` rule and targets of its own, or `off`. " +
      "May be changed alone (with `expected_revision`) even once published.",
  }),
};

export const UpdatePublicationRequest = z
  .object({
    expected_revision: RevisionField.openapi({ description: "The revision the editor loaded" }),
    ...z.object(publicationFields).partial().shape,
  })
  .openapi("UpdatePublicationRequest");

export const PublishNowRequest = z
  .object({ expected_revision: RevisionField.openapi({ description: "The revision the editor loaded" }) })
  .openapi("PublishNowRequest");

export const CancelPublicationRequest = z
  .object({ expected_revision: RevisionField.openapi({ description: "The revision the editor loaded" }) })
  .openapi("CancelPublicationRequest");

export const PublicationIdParams = z.object({ id: IdParam.openapi({ description: "Publication ID" }) });

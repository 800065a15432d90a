import { z } from "@hono/zod-openapi";
import { IdParam, WorkspaceIdField } from "../../lib/schemas/common";

/** CONTRACT.md §5 POST /publication-builds. Bounded everywhere: a build's planning cost is linear in this body. */
const BuildSourceInput = z
  .object({
    kind: z.enum(["text", "url", "media"]),
    label: z.string().max(200).optional(),
    text: z.string().max(100_000).optional().openapi({ description: "For `text` sources" }),
    url: z.string().max(2048).optional().openapi({ description: "For `url` sources: fetched by the build (http/https, public addresses)" }),
    media_id: IdParam.optional().openapi({ description: "For `media` sources: an item of the workspace's media library" }),
    publishable: z
      .boolean()
      .optional()
      .openapi({ description: "Whether the source may be quoted or attached (default true); an unpublishable source only supports claims" }),
  })
  .openapi("BuildSourceInput");

const DirectionText = z.string().max(500).optional();

export const CreateBuildRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    idea: z.string().max(10_000).optional(),
    sources: z.array(BuildSourceInput).max(20).optional(),
    destination_account_ids: z.array(IdParam).min(1).max(20),
    direction: z
      .object({ angle: DirectionText, audience: DirectionText, media_preference: DirectionText, outcome: DirectionText, tone_adjustment: DirectionText })
      .optional()
      .openapi("BuildDirectionInput"),
    voice_profile_id: IdParam.optional().openapi({ description: "Voice for every destination; else each account's voice or the workspace default" }),
  })
  .openapi("CreateBuildRequest");

export type CreateBuildBody = z.infer<typeof CreateBuildRequest>;

export const BuildIdParams = z.object({ id: IdParam.openapi({ description: "Publication build ID" }) });

import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { publications } from "../../db/schema";
import { audit } from "../../lib/audit";
import { enforcePlanLimits } from "../../lib/billing/enforce";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { attachMedia } from "../../lib/publishing/media";
import { assertMediaFits, planOrReject, platformsOf, writeRenditions } from "../../lib/publishing/save";
import { assertFutureSchedule, drawRunAt } from "../../lib/publishing/schedule";
import { publicationResponses } from "../../lib/publishing/respond";
import { publicBaseUrl } from "../../lib/env";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { publicationFields } from "./requests";
import { storedRepostOverride } from "./repost-override";
import { PublicationResponse } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const CreatePublicationRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    ...publicationFields,
    title: publicationFields.title.optional(),
    scheduled_at: publicationFields.scheduled_at.optional(),
    media_ids: publicationFields.media_ids.optional(),
    random_delay_minutes: publicationFields.random_delay_minutes.optional(),
    metadata: publicationFields.metadata.optional(),
    repost_override: publicationFields.repost_override.optional(),
  })
  .openapi("CreatePublicationRequest");

export const route = createRoute({
  method: "post",
  path: "/publications",
  operationId: "createPublication",
  tags: ["publications"],
  summary: "Compose a publication",
  description:
    "One rendition per destination; segments are split from the source text within each platform's limit unless given. Without `scheduled_at` it is a draft. Needs the editor role.",
  request: { body: jsonBody(CreatePublicationRequest) },
  responses: { 201: jsonResponse(PublicationResponse, "The new publication at revision 1"), ...problems(400, 401, 403, 404, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  const scheduledAt = body.scheduled_at ? new Date(body.scheduled_at) : null;
  const loaded = await db(c).transaction(async (tx) => {
    await assertFutureSchedule(tx, scheduledAt);
    await enforcePlanLimits(tx, c.env, { workspaceId: body.workspace_id }, [{ limit: "publications_per_month", adding: 1 }]);
    const title = body.title ?? null;
    const plans = await planOrReject(tx, body.workspace_id, { title, sourceText: body.source_text, destinations: body.destinations });
    const mediaIds = await attachMedia(tx, body.workspace_id, body.media_ids ?? [], "body.media_ids");
    await assertMediaFits(tx, mediaIds, platformsOf(plans));
    const repostOverride = await storedRepostOverride(tx, body.workspace_id, body.repost_override);
    const delay = body.random_delay_minutes ?? 0;
    const [row] = await tx
      .insert(publications)
      .values({
        id: newId("pub"),
        workspaceId: body.workspace_id,
        status: scheduledAt ? "scheduled" : "draft",
        title,
        sourceText: body.source_text,
        metadata: body.metadata ?? {},
        mediaIds,
        platforms: platformsOf(plans),
        scheduledAt,
        randomDelayMinutes: delay,
        runAt: drawRunAt(scheduledAt, delay),
        calendarAt: scheduledAt,
        createdBy: user.id,
        repostOverride: repostOverride ?? null,
      })
      .returning();
    await writeRenditions(tx, row, plans);
    await attachMedia.record(tx, row.workspaceId, row.id, mediaIds);
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "publication.create", targetType: "publication", targetId: row.id });
    return (await publicationResponses(tx, publicBaseUrl(c.env, c.req.url), [row]))[0];
  });
  return c.json(withSchema(c, PublicationResponse, loaded), 201);
};

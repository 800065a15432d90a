import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, ne, sql } from "drizzle-orm";
import { publications, renditions } from "../../db/schema";
import { audit } from "../../lib/audit";
import { publicBaseUrl } from "../../lib/env";
import { assertRevision } from "../../lib/errors";
import { auditActor, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { currentDestinations } from "../../lib/publishing/current-destinations";
import { attachMedia } from "../../lib/publishing/media";
import { publicationResponses } from "../../lib/publishing/respond";
import { assertEditable } from "../../lib/publishing/edit-rules";
import { assertMediaFits, planOrReject, platformsOf, rewriteRenditions } from "../../lib/publishing/save";
import { scheduleAfterEdit } from "../../lib/publishing/schedule";
import { PublicationIdParams, UpdatePublicationRequest } from "./requests";
import { storedRepostOverride } from "./repost-override";
import { PublicationResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource, scope } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "put",
  path: "/publications/{id}",
  operationId: "updatePublication",
  tags: ["publications"],
  summary: "Update a publication",
  description:
    "Changes the members given and keeps the others (CONTRACT §6). A scheduled publication stays scheduled unless the body sets `scheduled_at: null`; a `scheduled_at` in the past (given, or kept) makes it due at once, and the scheduler starts it on its next run (within a minute). " +
    "A partially published publication may be edited in its renditions not yet published: a change to a published rendition (its title, body or segments, or removing its destination) answers 409 not-editable naming it. " +
    "Every rendition keeps its delivery key, and segments already posted stay as posted, so publishing again never posts them twice; the edit applies to the segments after them. " +
    "A stale `expected_revision` answers 409 revision-conflict; a publication that is publishing or published answers 409 not-editable, " +
    "except to a body that changes only `repost_override`. Accepts an Idempotency-Key. Needs the editor role.",
  request: { params: PublicationIdParams, headers: IdempotencyKeyHeader, body: jsonBody(UpdatePublicationRequest) },
  responses: { 200: jsonResponse(PublicationResponse, "The publication at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("publication"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const { workspaceId } = scope(c);
  const scheduledAt = body.scheduled_at === undefined ? undefined : body.scheduled_at === null ? null : new Date(body.scheduled_at);

  return idempotent(c, { workspaceId, operation: "publications.update", request: { id, ...body } }, async (tx) => {
    const row = await lockScopedResource(c, tx, "publication");
    const repostOverride = await storedRepostOverride(tx, workspaceId, body.repost_override);
    // How a post is reposted may change after it is out (that is when it matters): alone, at any status.
    if (Object.keys(body).every((k) => k === "expected_revision" || k === "repost_override") && repostOverride !== undefined) {
      assertRevision(body.expected_revision, row.revision, "publication");
      const [updated] = await tx
        .update(publications)
        .set({ repostOverride, revision: row.revision + 1, updatedAt: sql`now()` })
        .where(and(eq(publications.id, id), eq(publications.revision, row.revision)))
        .returning();
      await audit(tx, { ...auditActor(c), workspaceId, action: "publication.update", targetType: "publication", targetId: id });
      const [out] = await publicationResponses(tx, publicBaseUrl(c.env, c.req.url), [updated]);
      return { status: 200, body: withSchema(c, PublicationResponse, out) };
    }
    assertEditable(row.status);
    assertRevision(body.expected_revision, row.revision, "publication");

    const title = body.title === undefined ? row.title : body.title;
    const sourceText = body.source_text ?? row.sourceText;
    const contentChanged = body.title !== undefined || body.source_text !== undefined || body.destinations !== undefined;
    let platforms = row.platforms;
    if (contentChanged) {
      const destinations = body.destinations ?? (await currentDestinations(tx, id, row.sourceText));
      const plans = await planOrReject(tx, workspaceId, { title, sourceText, destinations });
      await rewriteRenditions(tx, { id, workspaceId, title, sourceText }, plans);
      platforms = platformsOf(plans);
    } else if (row.status === "failed") {
      // Same content, another go: renditions become pending again and keep their delivery keys.
      await tx
        .update(renditions)
        .set({ status: "pending", updatedAt: sql`now()` })
        .where(and(eq(renditions.publicationId, id), ne(renditions.status, "published")));
    }
    const mediaIds = body.media_ids ? await attachMedia(tx, workspaceId, body.media_ids, "body.media_ids") : row.mediaIds;
    if (body.media_ids) await attachMedia.record(tx, workspaceId, id, mediaIds);
    if (body.media_ids || contentChanged) await assertMediaFits(tx, mediaIds, platforms);

    const schedule = scheduleAfterEdit(row, { scheduledAt, randomDelayMinutes: body.random_delay_minutes });
    const [updated] = await tx
      .update(publications)
      .set({
        title,
        sourceText,
        platforms,
        mediaIds,
        metadata: body.metadata ?? row.metadata,
        ...(repostOverride === undefined ? {} : { repostOverride }),
        ...schedule,
        revision: row.revision + 1,
        updatedAt: sql`now()`,
      })
      .where(and(eq(publications.id, id), eq(publications.revision, row.revision)))
      .returning();
    await audit(tx, { ...auditActor(c), workspaceId, action: "publication.update", targetType: "publication", targetId: id });
    const [out] = await publicationResponses(tx, publicBaseUrl(c.env, c.req.url), [updated]);
    return { status: 200, body: withSchema(c, PublicationResponse, out) };
  });
};

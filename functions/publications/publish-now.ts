import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { Queryable } from "../../lib/db/client";
import { afterCommit, auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { dispatchLeasedAfterCommit } from "../../lib/jobs/dispatch";
import { startPublishingAsRead } from "../../lib/publishing/start-as-read";
import { PublicationIdParams, PublishNowRequest } from "./requests";
import { ActionOutputBody } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "post",
  path: "/publications/{id}/publish-now",
  operationId: "publishPublicationNow",
  tags: ["publications"],
  summary: "Publish a publication now",
  description:
    "Queues delivery of every rendition not yet published (response carries `job_id`); follow progress with GET /publications/{id}. Accepts an Idempotency-Key. Needs the editor role.",
  request: { params: PublicationIdParams, headers: IdempotencyKeyHeader, body: jsonBody(PublishNowRequest) },
  responses: { 202: jsonResponse(ActionOutputBody, "Publishing queued"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

const QUEUED_MESSAGE = "Publishing queued; follow each rendition's delivery on GET /publications/{id}.";

export const access = workspaceRole("editor", resourceInPath("publication"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const user = currentUser(c);
  const start = (q: Queryable) =>
    startPublishingAsRead(q, { publicationId: id, userId: user.id, expectedRevision: body.expected_revision, actor: auditActor(c), message: QUEUED_MESSAGE });
  if (c.req.header("idempotency-key") === undefined) {
    // Nothing to replay: read, check and write in two requests, without an interactive transaction.
    const started = await start(db(c));
    dispatchLeasedAfterCommit(afterCommit(c), [started.job]);
    return c.json(withSchema(c, ActionOutputBody, started.output), 202);
  }
  // The same statements inside the key's transaction, so the effect and its replayable answer commit together.
  // The key is scoped to the publication's workspace (the access rule found it; an unknown or foreign publication was 404).
  const { workspaceId } = scope(c);
  let job: Parameters<typeof dispatchLeasedAfterCommit>[1][number] | undefined;
  const response = await idempotent(c, { workspaceId, operation: "publications.publish-now", request: { id, ...body } }, async (tx) => {
    const started = await start(tx);
    job = started.job;
    return { status: 202, body: withSchema(c, ActionOutputBody, started.output) };
  });
  if (job) dispatchLeasedAfterCommit(afterCommit(c), [job]);
  return response;
};

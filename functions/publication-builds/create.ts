import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { publicationBuilds } from "../../db/schema";
import { audit } from "../../lib/audit";
import { assembleInput } from "../../lib/builds/assemble";
import { allowPrivateUrls } from "../../lib/accounts/account-context";
import { requireAiBudget } from "../../lib/billing/ai-budget";
import { enforcePlanLimits } from "../../lib/billing/enforce";
import { afterCommit, auditActor, currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { dispatchAfterCommit } from "../../lib/jobs/dispatch";
import { enqueueJob } from "../../lib/jobs/outbox";
import { CreateBuildRequest } from "./requests";
import { toBuild } from "./present";
import { Build } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/publication-builds",
  operationId: "createBuild",
  tags: ["publication-builds"],
  summary: "Plan a publication for several destinations",
  description:
    "Records what the build is asked (sources, destinations with their output profiles, direction, voice snapshot) and queues it; " +
    "follow it with GET /publication-builds/{id} until `state` is `completed` or `failed`. Every account, media item and voice named must be the workspace's. " +
    "Accepts an Idempotency-Key. Needs the editor role.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateBuildRequest) },
  responses: { 202: jsonResponse(Build, "The build, queued"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

// Checked before the handler, so a non-member gets 404 before any idempotency key is claimed.
export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  let jobId: string | undefined;
  const response = await idempotent(c, { workspaceId: body.workspace_id, operation: "publication-builds.create", request: body }, async (tx) => {
    await enforcePlanLimits(tx, c.env, { workspaceId: body.workspace_id }, [{ limit: "builds_per_month", adding: 1 }]);
    // The AI budget as discovery checks it (and the consumer again, before it asks the model).
    await requireAiBudget(c.env, tx, body.workspace_id);
    const assembled = await assembleInput(tx, body.workspace_id, body, allowPrivateUrls(c.env));
    const id = newId("bld");
    const [row] = await tx
      .insert(publicationBuilds)
      .values({
        id,
        workspaceId: body.workspace_id,
        input: assembled.input,
        assets: assembled.assets,
        contextUrls: assembled.contextUrls,
        voiceProfileId: assembled.voiceProfileId,
        createdBy: user.id,
      })
      .returning();
    // The job commits with the build (outbox): a build is never queued without its job, nor the reverse.
    jobId = await enqueueJob(tx, "build.generate", body.workspace_id, { build_id: id }, { requestId: c.get("requestId") });
    await audit(tx, { ...auditActor(c), workspaceId: body.workspace_id, action: "publication_build.create", targetType: "publication_build", targetId: id });
    return { status: 202, body: withSchema(c, Build, toBuild(row)) };
  });
  if (jobId) dispatchAfterCommit(afterCommit(c), [jobId]);
  return response;
};

import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { publicBaseUrl } from "../../lib/env";
import { assertRevision } from "../../lib/errors";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { cancelPublication } from "../../lib/publishing/cancel";
import { publicationResponses } from "../../lib/publishing/respond";
import { CancelPublicationRequest, PublicationIdParams } from "./requests";
import { PublicationResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "post",
  path: "/publications/{id}/cancel",
  operationId: "cancelPublication",
  tags: ["publications"],
  summary: "Cancel a scheduled or publishing publication",
  description:
    "A scheduled publication becomes a draft (its schedule dropped) and nothing is sent. A publishing one: every rendition not yet being sent becomes `canceled` and is never sent; " +
    "one being sent, one whose outcome is still being checked with the platform (reconciling), and one whose thread is already partly posted finish, so no thread is left half posted. " +
    "When every rendition has ended the publication converges at once (`draft` when nothing was posted); otherwise it stays publishing until the last delivery ends. " +
    "Any other status answers 409 not-editable; a stale `expected_revision` 409 revision-conflict. Needs the editor role.",
  request: { params: PublicationIdParams, body: jsonBody(CancelPublicationRequest) },
  responses: { 200: jsonResponse(PublicationResponse, "The publication at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("publication"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const out = await db(c).transaction(async (tx) => {
    const row = await lockScopedResource(c, tx, "publication");
    assertRevision(body.expected_revision, row.revision, "publication");
    const updated = await cancelPublication(tx, row);
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "publication.cancel", targetType: "publication", targetId: id });
    const [response] = await publicationResponses(tx, publicBaseUrl(c.env, c.req.url), [updated]);
    return response;
  });
  return c.json(withSchema(c, PublicationResponse, out), 200);
};

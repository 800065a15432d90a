import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { publications } from "../../db/schema";
import { audit } from "../../lib/audit";
import { enforcePlanLimits } from "../../lib/billing/enforce";
import { commitBuild } from "../../lib/builds/commit";
import { publicBaseUrl } from "../../lib/env";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { publicationResponses } from "../../lib/publishing/respond";
import { PublicationResponse } from "../publications/schemas";
import { BuildIdParams } from "./requests";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "post",
  path: "/publication-builds/{id}/commit",
  operationId: "commitBuild",
  tags: ["publication-builds"],
  summary: "Turn a completed build into a draft publication",
  description:
    "One rendition per included destination, segments as planned. Exactly once: committing again answers the same publication (200). " +
    "A build that is not completed → 409 `not-editable`. Needs the editor role. Over the plan's `publications_per_month` → 403 `plan-limit-reached`.",
  request: { params: BuildIdParams },
  responses: {
    201: jsonResponse(PublicationResponse, "The new draft publication"),
    200: jsonResponse(PublicationResponse, "The publication an earlier commit made"),
    ...problems(401, 403, 404, 409, 422),
  },
});

export const access = workspaceRole("editor", resourceInPath("build"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const user = currentUser(c);
  const { body, created } = await db(c).transaction(async (tx) => {
    // The lock serialises concurrent commits of one build: the second sees the first's publication.
    const build = await lockScopedResource(c, tx, "build");
    // The first commit creates a publication: it counts against the plan like POST /publications.
    if (!build.publicationId) await enforcePlanLimits(tx, c.env, { workspaceId: build.workspaceId }, [{ limit: "publications_per_month", adding: 1 }]);
    const committed = await commitBuild(tx, build, user.id);
    if (committed.created) {
      await audit(tx, { ...auditActor(c), workspaceId: build.workspaceId, action: "publication_build.commit", targetType: "publication_build", targetId: id });
    }
    const rows = await tx.select().from(publications).where(eq(publications.id, committed.publicationId)).limit(1);
    const [response] = await publicationResponses(tx, publicBaseUrl(c.env, c.req.url), rows);
    return { body: response, created: committed.created };
  });
  return c.json(withSchema(c, PublicationResponse, body), created ? 201 : 200);
};

import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { documentAt, toDesign } from "./design-view";
import { DesignIdParams, DesignResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scope, scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "get",
  path: "/image-editor/designs/{id}",
  operationId: "getDesign",
  tags: ["image-editor"],
  summary: "Get a design at its head revision",
  description:
    "One image design at its head revision: its document and revision, which an update must name, and whether the caller may edit it. 404 for a design of another workspace.",
  request: { params: DesignIdParams },
  responses: { 200: jsonResponse(DesignResponse, "The design"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("design"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const design = scopedResource(c, "design");
  // A revision never changes once written, so the document of the revision the rule read needs no shared snapshot.
  const document = await documentAt(db(c), design.id, design.revision);
  return c.json(withSchema(c, DesignResponse, toDesign(design, document, scope(c).role)), 200);
};

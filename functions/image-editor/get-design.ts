import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { documentAt, loadDesignFor, toDesign } from "./design-view";
import { DesignIdParams, DesignResponse } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/image-editor/designs/{id}",
  tags: ["image-editor"],
  summary: "Get a design at its head revision",
  request: { params: DesignIdParams },
  responses: { 200: jsonResponse(DesignResponse, "The design"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const database = db(c);
  // One transaction so the head revision and its document are read from the same snapshot.
  const { design, role, document } = await database.transaction(async (tx) => {
    const { design, role } = await loadDesignFor(tx, currentUser(c).id, id, "viewer");
    return { design, role, document: await documentAt(tx, design.id, design.revision) };
  });
  return c.json(withSchema(c, DesignResponse, toDesign(design, document, role)), 200);
};

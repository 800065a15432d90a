import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { BooleanQuery, NonNegativeIntQuery, OffsetQuery, WorkspaceIdField } from "../../lib/schemas/common";
import { ListMediaOutputBody } from "./schemas";

const Dimension = (what: string) => NonNegativeIntQuery(100_000).optional().openapi({ description: `${what} in pixels, at least 0` });
const Day = (what: string) => z.iso.date().optional().openapi({ description: `YYYY-MM-DD; ${what} (inclusive)` });

export const ListMediaQuery = z.object({
  workspace_id: WorkspaceIdField,
  filter: z.enum(["all", "used", "unused", "favorites"]).default("all"),
  sort: z.enum(["newest", "oldest", "name", "size", "recently_used"]).default("newest"),
  search: z.string().max(200).optional().openapi({ description: "Case-insensitive match on filename, alt text and tag" }),
  type: z.string().max(50).optional().openapi({ description: "Dominant media type, e.g. image" }),
  source: z.string().max(50).optional().openapi({ description: "Media provenance" }),
  asset_kind: z.string().min(1).max(50).default("library").openapi({ description: "Asset role" }),
  lifecycle: z.enum(["library", "temporary", "trash", "all"]).default("library"),
  aspect: z.enum(["square", "portrait", "landscape"]).optional(),
  tag_id: z.string().max(100).optional().openapi({ description: "One tag id" }),
  tag_ids: z
    .string()
    .max(2000)
    .optional()
    .openapi({ description: "Comma-separated tag ids; media must have every one" }),
  untagged: BooleanQuery.optional().openapi({ description: "`true`: only media without tags" }),
  min_width: Dimension("Minimum width"),
  min_height: Dimension("Minimum height"),
  max_width: Dimension("Maximum width"),
  max_height: Dimension("Maximum height"),
  date_from: Day("created on or after"),
  date_to: Day("created on or before"),
  limit: limitParam(50, 200),
  offset: OffsetQuery,
});

export const route = createRoute({
  method: "get",
  path: "/media",
  tags: ["media"],
  summary: "List a workspace's media",
  request: { query: ListMediaQuery },
  responses: { 200: jsonResponse(ListMediaOutputBody, "One page of media and the total"), ...problems(401, 404, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  await requireRole(db(c), currentUser(c).id, workspace_id, "viewer");
  throw notImplemented("GET /media", "issue 4");
};

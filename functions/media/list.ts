import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, sql } from "drizzle-orm";
import { media, MEDIA_TYPES } from "../../db/schema";
import { publicBaseUrl } from "../../lib/env";
import { db, type AppEnv } from "../../lib/http/context";
import { ApiError, type FieldError } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema, withSchemaEach } from "../../lib/http/schema-ref";
import { inQuery, workspaceRole } from "../../lib/http/access";
import { scopedRead } from "../../lib/http/scoped-read";
import { toMediaItem } from "../../lib/media/item";
import { mediaListOrder, mediaListWhere, type MediaListFilters } from "../../lib/media/list-query";
import { MAX_TAG_LENGTH, MAX_TAGS, normalizeTag, parseTagList } from "../../lib/media/tags";
import { BooleanQuery, NonNegativeIntQuery, OffsetQuery, WorkspaceIdField } from "../../lib/schemas/common";
import { ListMediaOutputBody, MediaItem } from "./schemas";

const Dimension = (what: string) =>
  NonNegativeIntQuery(100_000)
    .optional()
    .openapi({ description: `${what} in pixels, at least 0` });
const Day = (what: string) =>
  z.iso
    .date()
    .optional()
    .openapi({ description: `YYYY-MM-DD; ${what} (inclusive)` });

export const ListMediaQuery = z.object({
  workspace_id: WorkspaceIdField,
  filter: z.enum(["all", "used", "unused", "favorites"]).default("all"),
  sort: z.enum(["newest", "oldest", "name", "size", "recently_used"]).default("newest"),
  search: z.string().max(200).optional().openapi({ description: "Case-insensitive match on filename, alt text and tag" }),
  type: z.enum(MEDIA_TYPES).optional().openapi({ description: "Dominant media type" }),
  source: z.string().max(50).optional().openapi({ description: "Media provenance" }),
  asset_kind: z.string().min(1).max(50).default("library").openapi({ description: "Asset role" }),
  lifecycle: z.enum(["library", "temporary", "trash", "all"]).default("library"),
  aspect: z.enum(["square", "portrait", "landscape"]).optional(),
  tag_id: z.string().max(100).optional().openapi({ description: "One tag id" }),
  tag_ids: z.string().max(2000).optional().openapi({ description: "Comma-separated tag ids; media must have every one" }),
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
  operationId: "listMedia",
  tags: ["media"],
  summary: "List a workspace's media",
  description:
    "Filters combine (all must hold). `search` is a case-insensitive substring match on the file name, alt text and tags; " +
    "`tag_id` and `tag_ids` select by tag id (the trimmed, lower-cased name) and together require every tag named; " +
    "dates are UTC days, both bounds inclusive. Sorts: `newest` / `oldest` by upload time, `name` by file name (A→Z), " +
    "`size` largest first, `recently_used` by the latest use in a publication, design or template (never-used items last, newest first). " +
    "`total` counts every item matching the filters, whatever `limit` and `offset` are.",
  request: { query: ListMediaQuery },
  responses: { 200: jsonResponse(ListMediaOutputBody, "One page of media and the total"), ...problems(401, 404, 422) },
});

type Query = z.infer<typeof ListMediaQuery>;

/** Checks that span parameters (each one alone was checked by the schema), and the filters they make. */
export function filtersOf(q: Query): MediaListFilters {
  const errors: FieldError[] = [];
  const tags = [...(q.tag_id !== undefined ? [normalizeTag(q.tag_id)].filter(Boolean) : []), ...parseTagList(q.tag_ids ?? "")];
  if (tags.length > MAX_TAGS) errors.push({ location: "query.tag_ids", message: `At most ${MAX_TAGS} tags` });
  if (tags.some((t) => t.length > MAX_TAG_LENGTH)) errors.push({ location: "query.tag_ids", message: `A tag id is at most ${MAX_TAG_LENGTH} characters` });
  if (q.date_from && q.date_to && q.date_from > q.date_to) errors.push({ location: "query.date_to", message: "date_to is before date_from", value: q.date_to });
  if (q.min_width !== undefined && q.max_width !== undefined && q.min_width > q.max_width)
    errors.push({ location: "query.max_width", message: "max_width is below min_width", value: q.max_width });
  if (q.min_height !== undefined && q.max_height !== undefined && q.min_height > q.max_height)
    errors.push({ location: "query.max_height", message: "max_height is below min_height", value: q.max_height });
  if (errors.length) throw new ApiError("validation-error", { detail: errors.map((e) => e.message).join("; "), errors });
  return {
    workspaceId: q.workspace_id,
    filter: q.filter,
    sort: q.sort,
    search: q.search,
    type: q.type,
    source: q.source,
    assetKind: q.asset_kind,
    lifecycle: q.lifecycle,
    aspect: q.aspect,
    tags: [...new Set(tags)],
    untagged: q.untagged,
    minWidth: q.min_width,
    maxWidth: q.max_width,
    minHeight: q.min_height,
    maxHeight: q.max_height,
    dateFrom: q.date_from,
    dateTo: q.date_to,
  };
}

export const access = workspaceRole("viewer", inQuery(), { readBesideAuth: true });

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const filters = filtersOf(q);
  const database = db(c);
  const where = mediaListWhere(filters);
  // The page and the exact total are independent queries on the same indexes: run them side by side.
  const {
    result: [rows, [{ total }]],
  } = await scopedRead(c, (guard) =>
    Promise.all([
      database
        .select()
        .from(media)
        .where(and(guard, where))
        .orderBy(...mediaListOrder(filters.sort))
        .limit(q.limit)
        .offset(q.offset ?? 0),
      database.select({ total: sql<number>`count(*)::int` }).from(media).where(and(guard, where)),
    ]),
  );
  const base = publicBaseUrl(c.env, c.req.url);
  return c.json(
    withSchema(c, ListMediaOutputBody, {
      media: withSchemaEach(
        c,
        MediaItem,
        rows.map((row) => toMediaItem(row, base)),
      ),
      total,
    }),
    200,
  );
};

import { and, arrayContains, eq, gte, isNotNull, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import { media, type MediaType } from "../../db/schema";
import type { Aspect } from "./classify";
import { containsPattern } from "./tags";

/** GET /media parameters after validation (tags normalised, dates as YYYY-MM-DD). */
export interface MediaListFilters {
  workspaceId: string;
  filter: "all" | "used" | "unused" | "favorites";
  sort: "newest" | "oldest" | "name" | "size" | "recently_used";
  search?: string;
  type?: MediaType;
  source?: string;
  assetKind: string;
  lifecycle: "library" | "temporary" | "trash" | "all";
  aspect?: Aspect;
  /** tag_id and tag_ids together: the item must carry every one. */
  tags: string[];
  untagged?: boolean;
  minWidth?: number;
  maxWidth?: number;
  minHeight?: number;
  maxHeight?: number;
  dateFrom?: string;
  dateTo?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const startOfDay = (day: string) => new Date(`${day}T00:00:00.000Z`);

/**
 * The WHERE clause of a media listing. Every condition is on a column an index of db/schema/media.ts
 * covers (see the table there), and the scope columns come first so each index's prefix applies.
 */
export function mediaListWhere(f: MediaListFilters): SQL {
  const search = f.search?.trim();
  return and(
    eq(media.workspaceId, f.workspaceId),
    eq(media.assetKind, f.assetKind),
    f.lifecycle === "all" ? undefined : eq(media.lifecycle, f.lifecycle),
    // last_used_at is set exactly while usage_count > 0 (lib/media/usage.ts), and media_list_used_idx covers it.
    f.filter === "used" ? isNotNull(media.lastUsedAt) : undefined,
    f.filter === "unused" ? isNull(media.lastUsedAt) : undefined,
    f.filter === "favorites" ? sql`${media.isFavorite}` : undefined,
    search ? sql`${media.searchText} like ${containsPattern(search)}` : undefined,
    f.type ? eq(media.mediaType, f.type) : undefined,
    f.source ? eq(media.source, f.source) : undefined,
    f.aspect ? eq(media.aspect, f.aspect) : undefined,
    f.tags.length ? arrayContains(media.tags, f.tags) : undefined,
    // Written exactly as media_list_untagged_idx's predicate so the planner can use that index.
    f.untagged ? sql`${media.tags} = '{}'::text[]` : undefined,
    f.minWidth !== undefined ? gte(media.width, f.minWidth) : undefined,
    f.maxWidth !== undefined ? lte(media.width, f.maxWidth) : undefined,
    f.minHeight !== undefined ? gte(media.height, f.minHeight) : undefined,
    f.maxHeight !== undefined ? lte(media.height, f.maxHeight) : undefined,
    f.dateFrom ? gte(media.createdAt, startOfDay(f.dateFrom)) : undefined,
    // Inclusive of the whole day: before the next midnight (UTC).
    f.dateTo ? lt(media.createdAt, new Date(startOfDay(f.dateTo).getTime() + DAY_MS)) : undefined,
  )!;
}

/** ORDER BY of each sort, in the column order and directions of its index, with id as the tie-breaker. */
export function mediaListOrder(sort: MediaListFilters["sort"]): SQL[] {
  switch (sort) {
    case "oldest":
      return [sql`${media.createdAt} asc`, sql`${media.id} asc`];
    case "name":
      return [sql`lower(${media.originalFilename}) asc nulls last`, sql`${media.id} asc`];
    case "size":
      return [sql`${media.size} desc`, sql`${media.id} desc`];
    case "recently_used":
      return [sql`${media.lastUsedAt} desc nulls last`, sql`${media.createdAt} desc nulls last`, sql`${media.id} desc nulls last`];
    case "newest":
    default:
      return [sql`${media.createdAt} desc`, sql`${media.id} desc`];
  }
}

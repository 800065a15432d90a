import { arrayContains, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { publications } from "../../db/schema";
import type { PublicationStatus } from "../../db/schema/publications";
import { BUCKET_STATUSES } from "./status";

export interface ListFilters {
  workspace_id: string;
  status?: PublicationStatus;
  activity_bucket?: keyof typeof BUCKET_STATUSES;
  content_profile?: string;
  platform?: string;
  search?: string;
  created_from?: string;
  created_before?: string;
  calendar_from?: string;
  calendar_before?: string;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/**
 * GET /publications filters as SQL conditions. Every one is index-backed (db/schema/publications.ts):
 * workspace + created_at (created range, order, cursor), workspace + status (status, activity bucket),
 * workspace + content_profile, GIN on platforms, workspace + trigram GIN on title || source text (search),
 * workspace + calendar_at (calendar range).
 */
export function listConditions(f: ListFilters): SQL[] {
  const conds: SQL[] = [eq(publications.workspaceId, f.workspace_id)];
  if (f.status) conds.push(eq(publications.status, f.status));
  if (f.activity_bucket) conds.push(inArray(publications.status, BUCKET_STATUSES[f.activity_bucket]));
  if (f.content_profile) conds.push(eq(publications.contentProfile, f.content_profile));
  if (f.platform) conds.push(arrayContains(publications.platforms, [f.platform]));
  if (f.search) conds.push(sql`(coalesce(${publications.title}, '') || ' ' || ${publications.sourceText}) ilike ${`%${escapeLike(f.search)}%`}`);
  if (f.created_from) conds.push(gte(publications.createdAt, new Date(f.created_from)));
  if (f.created_before) conds.push(lt(publications.createdAt, new Date(f.created_before)));
  if (f.calendar_from) conds.push(gte(publications.calendarAt, new Date(f.calendar_from)));
  if (f.calendar_before) conds.push(lt(publications.calendarAt, new Date(f.calendar_before)));
  return conds;
}

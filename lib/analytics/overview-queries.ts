import { and, eq, sql, type SQL } from "drizzle-orm";
import { analyticsContentItems as items, analyticsCoverage, analyticsMeasurements as m, publications, socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";
import { ENGAGEMENT_METRICS } from "./metrics";

/**
 * The SQL behind GET /analytics: each query is bounded by the workspace's content published within the
 * range (indexed on workspace, published_at) or by a page of ids. The benchmark runs these same queries
 * directly to compare with the HTTP answer.
 */

export type SourceFilter = "all" | "native" | "external";
export type SortKey = "engagement" | "views" | "newest";

export interface OverviewFilter {
  workspaceId: string;
  accountId: string | null;
  source: SourceFilter;
  days: number;
  /** The end of the range (and, for content pages, the snapshot time). */
  now: Date;
}

const DAY_MS = 86_400_000;
export const rangeStart = (f: Pick<OverviewFilter, "days" | "now">) => new Date(f.now.getTime() - f.days * DAY_MS);

/** Epoch milliseconds of a timestamp column, as a JS number (independent of the driver's date parsing). */
const ms = (col: SQL | string) => sql`round(extract(epoch from ${typeof col === "string" ? sql.raw(col) : col}) * 1000)::float8`;
const rows = async <T>(q: Queryable, query: SQL) => (await q.execute(query)).rows as T[];
const ENGAGEMENT = sql.raw(`array[${ENGAGEMENT_METRICS.map((x) => `'${x}'`).join(",")}]`);

/** Content items of the filter published in (from, to]. */
function inSet(f: OverviewFilter, from: Date, to: Date, alias = "i"): SQL {
  const a = sql.raw(alias);
  return sql.join(
    [
      sql`${a}.workspace_id = ${f.workspaceId}`,
      sql`${a}.published_at > ${from.toISOString()}::timestamptz`,
      sql`${a}.published_at <= ${to.toISOString()}::timestamptz`,
      f.accountId ? sql`${a}.account_id = ${f.accountId}` : undefined,
      f.source !== "all" ? sql`${a}.source = ${f.source}` : undefined,
    ].filter((x): x is SQL => x !== undefined),
    sql` and `,
  );
}

/**
 * The database's clock: the snapshot time a listing starts at is compared with created_at and rollup_at,
 * which the database writes, so it comes from the same clock.
 */
export async function databaseNow(q: Queryable): Promise<Date> {
  const [row] = await rows<{ now_ms: number }>(q, sql`select ${ms("now()")} as now_ms`);
  return new Date(Number(row.now_ms));
}

/** Every account of the workspace (disconnected ones too: their content keeps its history) with coverage. */
export async function accountRows(q: Queryable, workspaceId: string) {
  return q
    .select({ account: socialAccounts, coverage: analyticsCoverage })
    .from(socialAccounts)
    .leftJoin(analyticsCoverage, eq(analyticsCoverage.accountId, socialAccounts.id))
    .where(and(eq(socialAccounts.workspaceId, workspaceId)))
    .orderBy(socialAccounts.createdAt, socialAccounts.id);
}
export type AccountRow = Awaited<ReturnType<typeof accountRows>>[number];

export interface FollowerDay {
  account_id: string;
  day: string;
  value: number;
}

/** The last follower count of each day in the range, per account. */
export async function followerDays(q: Queryable, f: OverviewFilter, accountIds: string[]): Promise<FollowerDay[]> {
  if (accountIds.length === 0) return [];
  return rows<FollowerDay>(
    q,
    sql`select account_id, to_char(d, 'YYYY-MM-DD') as day, value::float8 as value from (
      select distinct on (account_id, date_trunc('day', collected_at at time zone 'UTC'))
        account_id, date_trunc('day', collected_at at time zone 'UTC') as d, value
      from ${m}
      where account_id in (${sql.join(
        accountIds.map((id) => sql`${id}`),
        sql`, `,
      )}) and content_item_id is null and metric = 'followers'
        and availability = 'available' and collected_at > ${rangeStart(f).toISOString()}::timestamptz and collected_at <= ${f.now.toISOString()}::timestamptz
      order by account_id, date_trunc('day', collected_at at time zone 'UTC'), collected_at desc) x
    order by account_id, day`,
  );
}

/** Each account's last follower count at or before the range's start (the baseline of its delta). */
export async function followerBaselines(q: Queryable, f: OverviewFilter, accountIds: string[]): Promise<{ account_id: string; value: number }[]> {
  if (accountIds.length === 0) return [];
  return rows(
    q,
    sql`select a.id as account_id, b.value::float8 as value from unnest(array[${sql.join(
      accountIds.map((id) => sql`${id}`),
      sql`, `,
    )}]::text[]) a(id)
      cross join lateral (select value from ${m} where account_id = a.id and content_item_id is null and metric = 'followers'
        and availability = 'available' and collected_at <= ${rangeStart(f).toISOString()}::timestamptz order by collected_at desc limit 1) b`,
  );
}

export interface ReadingRow {
  owner_id: string;
  metric: string;
  value: number | null;
  availability: "available" | "unavailable";
  unavailable_reason: string | null;
  collected_ms: number;
  source: string;
  aggregation: string;
  unit: string;
  scale: number;
  period_start_ms: number | null;
  period_end_ms: number | null;
}

const readingColumns = sql`metric, value::float8 as value, availability, unavailable_reason, ${ms("collected_at")} as collected_ms, source, aggregation, unit, scale,
  ${ms("period_start")} as period_start_ms, ${ms("period_end")} as period_end_ms`;

/** The latest reading per (account, metric) of account-level metrics: an available one when there is one. */
export async function accountReadings(q: Queryable, accountIds: string[]): Promise<ReadingRow[]> {
  if (accountIds.length === 0) return [];
  return rows(
    q,
    sql`select distinct on (account_id, metric) account_id as owner_id, ${readingColumns} from ${m}
      where account_id in (${sql.join(
        accountIds.map((id) => sql`${id}`),
        sql`, `,
      )}) and content_item_id is null
      order by account_id, metric, (availability = 'available') desc, collected_at desc`,
  );
}

/** The latest reading per (content item, metric) for a page of items. */
export async function itemReadings(q: Queryable, itemIds: string[]): Promise<ReadingRow[]> {
  if (itemIds.length === 0) return [];
  return rows(
    q,
    sql`select distinct on (content_item_id, metric) content_item_id as owner_id, ${readingColumns} from ${m}
      where content_item_id in (${sql.join(
        itemIds.map((id) => sql`${id}`),
        sql`, `,
      )})
      order by content_item_id, metric, (availability = 'available') desc, collected_at desc`,
  );
}

export interface PeriodTotals {
  published: number;
  engagement: number;
  engagement_measured: number;
  views: number;
  views_measured: number;
  impressions: number;
  impressions_measured: number;
  reach: number;
  reach_measured: number;
  accounts: number;
  first_collected_ms: number | null;
  last_collected_ms: number | null;
}

const metricSum = (name: string) =>
  sql.raw(
    `coalesce(sum((i.latest_metrics ->> '${name}')::bigint), 0)::float8 as ${name}, (count(*) filter (where i.latest_metrics ? '${name}'))::int as ${name}_measured`,
  );

/** Totals over the range and, for deltas, over the previous period of the same length. */
export async function periodTotals(q: Queryable, f: OverviewFilter): Promise<{ current: PeriodTotals; previous: PeriodTotals }> {
  const start = rangeStart(f);
  const previousStart = new Date(start.getTime() - f.days * DAY_MS);
  const found = await rows<PeriodTotals & { period: string }>(
    q,
    sql`select case when i.published_at > ${start.toISOString()}::timestamptz then 'current' else 'previous' end as period,
        count(*)::int as published,
        coalesce(sum(i.engagement), 0)::float8 as engagement,
        (count(*) filter (where i.latest_metrics ?| ${ENGAGEMENT}))::int as engagement_measured,
        ${metricSum("views")}, ${metricSum("impressions")}, ${metricSum("reach")},
        count(distinct i.account_id)::int as accounts,
        min(${ms("i.metrics_collected_at")}) as first_collected_ms, max(${ms("i.metrics_collected_at")}) as last_collected_ms
      from ${items} i where ${inSet(f, previousStart, f.now)}
      group by 1`,
  );
  const empty: PeriodTotals = {
    published: 0,
    engagement: 0,
    engagement_measured: 0,
    views: 0,
    views_measured: 0,
    impressions: 0,
    impressions_measured: 0,
    reach: 0,
    reach_measured: 0,
    accounts: 0,
    first_collected_ms: null,
    last_collected_ms: null,
  };
  return { current: found.find((r) => r.period === "current") ?? empty, previous: found.find((r) => r.period === "previous") ?? empty };
}

export interface ContentRow {
  id: string;
  account_id: string;
  source: "native" | "external";
  external_id: string;
  rendition_id: string | null;
  publication_id: string | null;
  content_profile: string | null;
  published_ms: number;
  title: string | null;
  excerpt: string | null;
  external_url: string | null;
  engagement: number;
  views: number | null;
  latest_metrics: Record<string, number>;
  collected_ms: number | null;
  last_synced_ms: number | null;
  rendition_status: string | null;
  rendition_error_code: string | null;
  rendition_error_message: string | null;
  sort_value: number | null;
}

const contentColumns = sql`i.id, i.account_id, i.source, i.external_id, i.rendition_id, i.publication_id, p.content_profile,
  ${ms("i.published_at")} as published_ms, i.title, i.excerpt, i.external_url, i.engagement::float8 as engagement, i.views::float8 as views,
  i.latest_metrics, ${ms("i.metrics_collected_at")} as collected_ms, ${ms("i.last_synced_at")} as last_synced_ms,
  r.status as rendition_status, r.error_code as rendition_error_code, r.error_message as rendition_error_message`;
const contentJoins = sql`left join ${publications} p on p.id = i.publication_id left join renditions r on r.id = i.rendition_id`;

/**
 * The sort value of an item as of a snapshot: its roll-up when that is older than the snapshot, otherwise
 * recomputed from the measurements collected up to the snapshot, so later pages of one listing keep the
 * first page's order however measurements arrive meanwhile.
 */
function sortValueAsOf(sort: SortKey, asOf: string): SQL {
  if (sort === "newest") return sql`${ms("i.published_at")}`;
  if (sort === "views") {
    return sql`coalesce(case when i.rollup_at <= ${asOf}::timestamptz then i.views else (select mm.value from ${m} mm
      where mm.content_item_id = i.id and mm.metric = 'views' and mm.availability = 'available' and mm.collected_at <= ${asOf}::timestamptz
      order by mm.collected_at desc limit 1) end, -1)::float8`;
  }
  return sql`(case when i.rollup_at <= ${asOf}::timestamptz then i.engagement else (select coalesce(sum(d.value), 0) from (
      select distinct on (mm.metric) mm.value from ${m} mm where mm.content_item_id = i.id and mm.metric = any(${ENGAGEMENT})
        and mm.availability = 'available' and mm.collected_at <= ${asOf}::timestamptz order by mm.metric, mm.collected_at desc) d) end)::float8`;
}

export interface PagePosition {
  value: number;
  id: string;
}

/** One page of content in the range, ordered by `sort` then id (both descending), after `after`. */
export async function contentPage(q: Queryable, f: OverviewFilter, sort: SortKey, after: PagePosition | null, limit: number): Promise<ContentRow[]> {
  const asOf = f.now.toISOString();
  const key = sortValueAsOf(sort, asOf);
  return rows(
    q,
    sql`select * from (
        select ${contentColumns}, ${key} as sort_value from ${items} i ${contentJoins}
        where ${inSet(f, rangeStart(f), f.now)} and i.created_at <= ${asOf}::timestamptz
      ) s
      ${after ? sql`where (s.sort_value, s.id) < (${after.value}::float8, ${after.id})` : sql``}
      order by s.sort_value desc, s.id desc limit ${limit}`,
  );
}

/** Items of the given publications within the filter (their renditions' measurements). */
export async function publicationItems(q: Queryable, f: OverviewFilter, publicationIds: string[]): Promise<ContentRow[]> {
  if (publicationIds.length === 0) return [];
  return rows(
    q,
    sql`select ${contentColumns}, null::float8 as sort_value from ${items} i ${contentJoins}
      where ${inSet(f, rangeStart(f), f.now)} and i.publication_id in (${sql.join(
        publicationIds.map((id) => sql`${id}`),
        sql`, `,
      )})
      order by i.publication_id, i.published_at, i.id`,
  );
}

export interface PublicationRow {
  publication_id: string;
  title: string | null;
  source_text: string | null;
  engagement: number;
  total: number;
}

/**
 * A page of the publications whose renditions were published in the range, most engagement first, after
 * `after`. Engagement is summed as of the snapshot `f.now` (as content pages are), so later pages keep the
 * first page's order however measurements arrive meanwhile. `total` counts them all.
 */
export async function publicationPage(
  q: Queryable,
  f: OverviewFilter,
  after: { engagement: number; id: string } | null,
  limit: number,
): Promise<PublicationRow[]> {
  const asOf = f.now.toISOString();
  return rows(
    q,
    sql`with g as (
        select i.publication_id, sum(${sortValueAsOf("engagement", asOf)})::float8 as engagement from ${items} i
        where ${inSet(f, rangeStart(f), f.now)} and i.publication_id is not null and i.created_at <= ${asOf}::timestamptz
        group by i.publication_id
      )
      select g.publication_id, p.title, left(p.source_text, 280) as source_text, g.engagement, (select count(*) from g)::int as total
      from g join ${publications} p on p.id = g.publication_id
      ${after ? sql`where (g.engagement, g.publication_id) < (${after.engagement}::float8, ${after.id})` : sql``}
      order by g.engagement desc, g.publication_id desc limit ${limit}`,
  );
}

export interface TrendRow {
  day: string;
  engagement: number;
  views: number;
  top:
    | {
        id: string;
        title: string | null;
        excerpt: string | null;
        external_id: string;
        account_id: string;
        publication_id: string | null;
        engagement: number;
        views: number | null;
        re: number;
        rv: number;
      }[]
    | null;
}

/** Per publication day: engagement and views of the content published that day, with its top three items by each. */
export async function trendRows(q: Queryable, f: OverviewFilter): Promise<TrendRow[]> {
  return rows(
    q,
    sql`with s as (
        select i.id, i.title, i.excerpt, i.external_id, i.account_id, i.publication_id, i.engagement::float8 as engagement, i.views::float8 as views,
          to_char(i.published_at at time zone 'UTC', 'YYYY-MM-DD') as day
        from ${items} i where ${inSet(f, rangeStart(f), f.now)}
      ), ranked as (
        select s.*, row_number() over (partition by day order by engagement desc, id desc) as re,
          row_number() over (partition by day order by coalesce(views, -1) desc, id desc) as rv from s
      )
      select day, sum(engagement)::float8 as engagement, coalesce(sum(views), 0)::float8 as views,
        json_agg(json_build_object('id', id, 'title', title, 'excerpt', excerpt, 'external_id', external_id, 'account_id', account_id,
          'publication_id', publication_id, 'engagement', engagement, 'views', views, 're', re, 'rv', rv))
          filter (where re <= 3 or (rv <= 3 and views is not null)) as top
      from ranked group by day order by day`,
  );
}

/** The item with most engagement actions in the range (the insight), among items where they were measured. */
export async function topEngagementItem(q: Queryable, f: OverviewFilter): Promise<ContentRow | undefined> {
  const [row] = await rows<ContentRow>(
    q,
    sql`select ${contentColumns}, i.engagement::float8 as sort_value from ${items} i ${contentJoins}
      where ${inSet(f, rangeStart(f), f.now)} and i.latest_metrics ?| ${ENGAGEMENT}
      order by i.engagement desc, i.published_at desc, i.id desc limit 1`,
  );
  return row;
}

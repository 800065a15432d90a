import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import {
  accountInfo,
  analyticsAccount,
  contentItem,
  coverageOf,
  followerGrowth,
  followerSummary,
  mostEngagementInsight,
  publicationAnalytics,
  summary,
  trends,
} from "../../lib/analytics/overview";
import { decodeContentCursor, encodeContentCursor } from "../../lib/analytics/overview-cursor";
import { loadOverview } from "../../lib/analytics/overview-load";
import { decodePublicationCursor, encodePublicationCursor } from "../../lib/analytics/publication-cursor";
import * as Q from "../../lib/analytics/overview-queries";
import { ApiError } from "../../lib/http/errors";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { IdParam, WorkspaceIdField } from "../../lib/schemas/common";
import { AnalyticsSourceFilter, Overview } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

/** Publications per page: each carries its renditions (up to 50 destinations), so pages stay small. */
const PUBLICATION_PAGE = 20;
const PUBLICATION_PAGE_MAX = 50;

export const AnalyticsQuery = z.object({
  workspace_id: WorkspaceIdField,
  days: z.coerce
    .number()
    .int()
    .pipe(z.union([z.literal(7), z.literal(30), z.literal(90)]))
    .default(30)
    .openapi({ enum: [7, 30, 90], description: "Content published within the last 7, 30 or 90 days" }),
  account_id: IdParam.optional().openapi({ description: "Only this account's results and content totals" }),
  source: AnalyticsSourceFilter.default("all").openapi({ description: "Content source filter; account growth stays account-wide" }),
  sort: z.enum(["engagement", "views", "newest"]).default("engagement"),
  cursor: cursorParam.openapi({ description: "Opaque cursor from content_next_cursor, bound to the source" }),
  limit: limitParam(50, 100).openapi({ description: "Content results per page, 1 to 100" }),
  publication_cursor: cursorParam.openapi({ description: "Opaque cursor from publication_next_cursor, bound to the source, days and account_id" }),
  publication_limit: limitParam(PUBLICATION_PAGE, PUBLICATION_PAGE_MAX).openapi({
    description: `Publications per page, 1 to ${PUBLICATION_PAGE_MAX} (each carries its renditions)`,
  }),
});

export const route = createRoute({
  method: "get",
  path: "/analytics",
  operationId: "getAnalyticsOverview",
  tags: ["analytics"],
  summary: "Stored whole-account content analytics",
  description:
    "Computed from stored measurements. `days` selects content published within the last 7, 30 or 90 days; `summary` deltas compare with the previous period of the same length. Content pages are a snapshot taken at the first page: the cursor keeps its order however measurements arrive meanwhile. `publications` is a page of `publication_limit` publications, most engagement first (`publication_total` counts all); pass `publication_next_cursor` as `publication_cursor` for the next, a snapshot like content pages.",
  request: { query: AnalyticsQuery },
  responses: { 200: jsonResponse(Overview, "The overview"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const database = db(c);
  const binding = { sort: query.sort, source: query.source, days: query.days, accountId: query.account_id ?? null };
  const after = query.cursor ? decodeContentCursor(query.cursor, binding) : null;
  const pubBinding = { source: query.source, days: query.days, accountId: query.account_id ?? null };
  const pubAfter = query.publication_cursor ? decodePublicationCursor(query.publication_cursor, pubBinding) : null;
  const now = await Q.databaseNow(database);
  const filter: Q.OverviewFilter = { workspaceId: query.workspace_id, accountId: query.account_id ?? null, source: query.source, days: query.days, now };

  const loaded = await loadOverview(database, filter, {
    sort: query.sort,
    after,
    limit: query.limit,
    publicationsAfter: pubAfter,
    publicationLimit: query.publication_limit,
  });
  const {
    allAccounts,
    shown,
    shownIds,
    pageFilter,
    pubFilter,
    followerDays,
    baselines,
    accountReadings,
    totals,
    trendDays,
    page,
    pubRows,
    pubItems,
    topRow,
    readings,
  } = loaded;
  if (filter.accountId && !allAccounts.some((a) => a.account.id === filter.accountId)) {
    throw new ApiError("validation-error", {
      detail: "No such account in this workspace.",
      errors: [{ location: "query.account_id", message: "No such account in this workspace" }],
    });
  }
  const info = accountInfo(allAccounts);
  const byOwner = new Map<string, Q.ReadingRow[]>();
  for (const r of readings) byOwner.set(r.owner_id, [...(byOwner.get(r.owner_id) ?? []), r]);
  const readingsOf = (id: string) => byOwner.get(id) ?? [];
  const nowMs = now.getTime();
  const toItem = (row: Q.ContentRow) => contentItem(row, info.get(row.account_id), readingsOf(row.id), nowMs);

  const growth = followerGrowth(shownIds, followerDays, baselines, now, query.days);
  const last = page.at(-1);
  const nextCursor = loaded.hasMore && last ? encodeContentCursor(binding, { asOf: pageFilter.now, value: Number(last.sort_value), id: last.id }) : null;
  const lastPub = pubRows.at(-1);
  const pubNextCursor =
    loaded.pubHasMore && lastPub
      ? encodePublicationCursor(pubBinding, { asOf: pubFilter.now, engagement: Number(lastPub.engagement), id: lastPub.publication_id })
      : null;
  const lastSynced = shown.map((a) => a.coverage?.lastSuccessAt?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);

  const body = {
    generated_at: now.toISOString(),
    last_synced_at: lastSynced ? new Date(lastSynced).toISOString() : null,
    range_days: query.days,
    source: query.source,
    account_growth_scope: "account_wide",
    summary: summary(totals.current, totals.previous, followerSummary(growth)),
    trends: trends(trendDays, growth, info, now, query.days),
    accounts: shown.map((a) =>
      analyticsAccount(
        a,
        growth.find((g) => g.accountId === a.account.id),
        accountReadings.filter((r) => r.owner_id === a.account.id),
        nowMs,
      ),
    ),
    follower_series: trends([], growth, info, now, query.days).followers.map(({ date, value }) => ({ date, value })),
    coverage: shown.map(coverageOf),
    insights: [mostEngagementInsight(topRow ? toItem(topRow) : undefined, totals.current, { fromMs: Q.rangeStart(filter).getTime(), toMs: nowMs })],
    content: page.map(toItem),
    content_total: totals.current.published,
    content_next_cursor: nextCursor,
    publications: pubRows.map((p) => publicationAnalytics(p, pubItems.filter((i) => i.publication_id === p.publication_id).map(toItem))),
    publication_total: pubRows[0]?.total ?? 0,
    publication_next_cursor: pubNextCursor,
  };
  return c.json(withSchema(c, Overview, body), 200);
};

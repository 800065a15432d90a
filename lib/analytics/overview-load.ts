import type { Queryable } from "../db/client";
import * as Q from "./overview-queries";

/**
 * Every query behind one GET /analytics answer, run in two rounds (independent ones together). The
 * handler shapes the result; the benchmark runs this directly to compare with the HTTP answer.
 */
export async function loadOverview(
  q: Queryable,
  filter: Q.OverviewFilter,
  opts: {
    sort: Q.SortKey;
    after: (Q.PagePosition & { asOf: Date }) | null;
    limit: number;
    publicationsAfter?: { asOf: Date; engagement: number; id: string } | null;
    publicationLimit?: number;
  },
) {
  const allAccounts = await Q.accountRows(q, filter.workspaceId);
  const shown = allAccounts.filter((a) => (filter.accountId ? a.account.id === filter.accountId : a.account.disconnectedAt === null));
  const shownIds = shown.map((a) => a.account.id);
  const pageFilter = opts.after ? { ...filter, now: opts.after.asOf } : filter;
  const pubFilter = opts.publicationsAfter ? { ...filter, now: opts.publicationsAfter.asOf } : filter;
  const pubLimit = opts.publicationLimit ?? opts.limit;
  const [followerDays, baselines, accountReadings, totals, trendDays, pageRows, pubRows, topRow] = await Promise.all([
    Q.followerDays(q, filter, shownIds),
    Q.followerBaselines(q, filter, shownIds),
    Q.accountReadings(q, shownIds),
    Q.periodTotals(q, filter),
    Q.trendRows(q, filter),
    Q.contentPage(q, pageFilter, opts.sort, opts.after, opts.limit + 1),
    Q.publicationPage(q, pubFilter, opts.publicationsAfter ?? null, pubLimit + 1),
    Q.topEngagementItem(q, filter),
  ]);
  const page = pageRows.slice(0, opts.limit);
  const pubPage = pubRows.slice(0, pubLimit);
  const pubItems = await Q.publicationItems(
    q,
    pubFilter,
    pubPage.map((p) => p.publication_id),
  );
  const readings = await Q.itemReadings(q, [...new Set([...page, ...pubItems, ...(topRow ? [topRow] : [])].map((r) => r.id))]);
  return {
    allAccounts,
    shown,
    shownIds,
    pageFilter,
    followerDays,
    baselines,
    accountReadings,
    totals,
    trendDays,
    page,
    hasMore: pageRows.length > opts.limit,
    pubFilter,
    pubRows: pubPage,
    pubHasMore: pubRows.length > pubLimit,
    pubItems,
    topRow,
    readings,
  };
}

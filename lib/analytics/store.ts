import { sql } from "drizzle-orm";
import { analyticsContentItems, analyticsMeasurements } from "../../db/schema";
import type { AnalyticsContentSource } from "../../db/schema/analytics";
import type { Queryable } from "../db/client";
import { newId } from "../ids";
import type { MeasurementSource, MetricReading } from "../providers/analytics/collect";
import { ENGAGEMENT_METRICS } from "./metrics";

export interface ContentItemInput {
  workspaceId: string;
  accountId: string;
  source: AnalyticsContentSource;
  externalId: string;
  publishedAt: Date;
  title?: string | null;
  excerpt?: string | null;
  externalUrl?: string | null;
  renditionId?: string | null;
  publicationId?: string | null;
}

/**
 * Insert or update content items keyed by (account, external id): importing or collecting the same post
 * again updates it and never duplicates it. An existing item keeps its source and its link to a rendition
 * when the new data has none. Callers pass each (account, external id) once. Results follow `items`' order.
 */
export async function upsertContentItems(q: Queryable, items: ContentItemInput[], syncedAt: Date): Promise<{ id: string; created: boolean }[]> {
  const out: { id: string; created: boolean }[] = [];
  for (let i = 0; i < items.length; i += 500) {
    const chunk = items.slice(i, i + 500);
    const rows = await q
      .insert(analyticsContentItems)
      .values(
        chunk.map((it) => ({
          id: newId("aci"),
          workspaceId: it.workspaceId,
          accountId: it.accountId,
          source: it.source,
          externalId: it.externalId,
          publishedAt: it.publishedAt,
          title: it.title ?? null,
          excerpt: it.excerpt ?? null,
          externalUrl: it.externalUrl ?? null,
          renditionId: it.renditionId ?? null,
          publicationId: it.publicationId ?? null,
          lastSyncedAt: syncedAt,
        })),
      )
      .onConflictDoUpdate({
        target: [analyticsContentItems.accountId, analyticsContentItems.externalId],
        set: {
          publishedAt: sql`excluded.published_at`,
          title: sql`coalesce(excluded.title, ${analyticsContentItems.title})`,
          excerpt: sql`coalesce(excluded.excerpt, ${analyticsContentItems.excerpt})`,
          externalUrl: sql`coalesce(excluded.external_url, ${analyticsContentItems.externalUrl})`,
          renditionId: sql`coalesce(excluded.rendition_id, ${analyticsContentItems.renditionId})`,
          publicationId: sql`coalesce(excluded.publication_id, ${analyticsContentItems.publicationId})`,
          lastSyncedAt: sql`excluded.last_synced_at`,
          updatedAt: sql`now()`,
        },
      })
      .returning({
        id: analyticsContentItems.id,
        accountId: analyticsContentItems.accountId,
        externalId: analyticsContentItems.externalId,
        created: sql<boolean>`(xmax = 0)`,
      });
    // RETURNING order is not promised to follow VALUES order: map back by key.
    const byKey = new Map(rows.map((r) => [`${r.accountId}\n${r.externalId}`, r]));
    for (const it of chunk) {
      const row = byKey.get(`${it.accountId}\n${it.externalId}`)!;
      out.push({ id: row.id, created: row.created });
    }
  }
  return out;
}

export interface MeasurementInput {
  workspaceId: string;
  accountId: string;
  contentItemId: string | null;
  reading: MetricReading;
  collectedAt: Date;
  source: MeasurementSource;
}

/** Append timestamped measurements (a time series: the latest per metric is the current value). */
export async function insertMeasurements(q: Queryable, rows: MeasurementInput[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    if (chunk.length === 0) continue;
    await q.insert(analyticsMeasurements).values(
      chunk.map((m) => ({
        id: newId("ams"),
        workspaceId: m.workspaceId,
        accountId: m.accountId,
        contentItemId: m.contentItemId,
        metric: m.reading.metric,
        value: m.reading.value,
        availability: m.reading.value === null ? ("unavailable" as const) : ("available" as const),
        unavailableReason: m.reading.value === null ? m.reading.reason : null,
        collectedAt: m.collectedAt,
        source: m.source,
      })),
    );
  }
}

/**
 * Recompute the items' roll-up columns from their latest available measurements: `latest_metrics` per
 * metric, engagement the sum of the latest likes, reposts and replies, views the latest views (null when
 * never measured). One statement per 1,000 items.
 */
export async function refreshRollups(q: Queryable, itemIds: string[]): Promise<void> {
  const engagementMetrics = sql.join(
    ENGAGEMENT_METRICS.map((m) => sql`${m}`),
    sql`, `,
  );
  for (let i = 0; i < itemIds.length; i += 1000) {
    const ids = itemIds.slice(i, i + 1000);
    if (ids.length === 0) continue;
    await q.execute(sql`
      update ${analyticsContentItems} i set
        latest_metrics = coalesce(l.metrics, '{}'::jsonb),
        engagement = coalesce(l.engagement, 0),
        views = l.views,
        metrics_collected_at = l.collected_at,
        rollup_at = now()
      from (
        select x.id,
          (select jsonb_object_agg(d.metric, d.value) from (
            select distinct on (m.metric) m.metric, m.value from ${analyticsMeasurements} m
            where m.content_item_id = x.id and m.availability = 'available' order by m.metric, m.collected_at desc) d) as metrics,
          (select max(m.collected_at) from ${analyticsMeasurements} m where m.content_item_id = x.id) as collected_at
        from unnest(${sql.raw("ARRAY[")}${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )}${sql.raw("]::text[]")}) as x(id)
      ) l0
      cross join lateral (
        select l0.id, l0.metrics, l0.collected_at,
          (select sum((l0.metrics ->> k)::bigint) from unnest(array[${engagementMetrics}]::text[]) k) as engagement,
          (l0.metrics ->> 'views')::bigint as views
      ) l
      where i.id = l.id`);
  }
}

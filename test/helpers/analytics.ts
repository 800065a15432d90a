import { analyticsCoverage } from "../../db/schema";
import type { MeasurementSource } from "../../lib/providers/analytics/collect";
import { insertMeasurements, refreshRollups, upsertContentItems } from "../../lib/analytics/store";
import { withDb } from "./harness";

const DAY = 86_400_000;
export const daysAgo = (d: number, from = Date.now()) => new Date(from - d * DAY);

/** A stored content item with measurements written directly (as a collector or import would have). */
export async function seedItem(
  ws: string,
  accountId: string,
  o: {
    externalId: string;
    publishedAt: Date;
    source?: "native" | "external";
    title?: string;
    publicationId?: string;
    renditionId?: string;
    metrics?: Record<string, number | null>;
    collectedAt?: Date;
    measurementSource?: MeasurementSource;
  },
) {
  return withDb(async (db) => {
    const [saved] = await upsertContentItems(
      db,
      [
        {
          workspaceId: ws,
          accountId,
          source: o.source ?? "native",
          externalId: o.externalId,
          publishedAt: o.publishedAt,
          title: o.title ?? o.externalId,
          publicationId: o.publicationId,
          renditionId: o.renditionId,
        },
      ],
      o.collectedAt ?? new Date(),
    );
    await insertMeasurements(
      db,
      Object.entries(o.metrics ?? {}).map(([metric, value]) => ({
        workspaceId: ws,
        accountId,
        contentItemId: saved.id,
        reading: value === null ? { metric, value: null, reason: "not_offered" } : { metric, value },
        collectedAt: o.collectedAt ?? new Date(),
        source: o.measurementSource ?? "mastodon_api",
      })),
    );
    await refreshRollups(db, [saved.id]);
    return saved.id;
  });
}

/** Follower counts of an account at given times. */
export async function seedFollowers(ws: string, accountId: string, points: [Date, number][]) {
  await withDb((db) =>
    insertMeasurements(
      db,
      points.map(([at, value]) => ({
        workspaceId: ws,
        accountId,
        contentItemId: null,
        reading: { metric: "followers", value },
        collectedAt: at,
        source: "mastodon_api" as const,
      })),
    ),
  );
}

export async function seedCoverage(ws: string, accountId: string, fields: Partial<typeof analyticsCoverage.$inferInsert>) {
  await withDb((db) =>
    db
      .insert(analyticsCoverage)
      .values({ accountId, workspaceId: ws, ...fields })
      .onConflictDoUpdate({ target: analyticsCoverage.accountId, set: fields }),
  );
}

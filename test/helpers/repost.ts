import { eq } from "drizzle-orm";
import { outboxJobs, publications, renditions, repostActivity, repostAttempts, repostPolicies } from "../../db/schema";
import type { RepostOverrideData, RepostRuleData } from "../../db/schema/repost";
import { newId } from "../../lib/ids";
import { inArray } from "drizzle-orm";
import { withDb } from "./harness";

/** A rule as stored: likes ≥ 3 within a day, one stage at once; `r` changes any field. */
export const ruleData = (r: Partial<RepostRuleData> = {}): RepostRuleData => ({
  threshold_mode: "all",
  min_likes: 3,
  min_reposts: 0,
  min_comments: 0,
  min_views: 0,
  evaluation_window_seconds: 86_400,
  require_plateau: false,
  plateau_checks: 3,
  delay_seconds: 0,
  stages: [{ delay_seconds: 0, unrepost_previous: false }],
  ...r,
});

/** A post by `accountId` that Herald published (publication + published rendition), `minutesAgo` ago. */
export async function publishedRendition(
  ws: string,
  accountId: string,
  platform: string,
  externalId: string,
  externalUrl: string | null,
  o: { minutesAgo?: number; override?: RepostOverrideData } = {},
) {
  const publicationId = newId("pub");
  const renditionId = newId("rnd");
  const publishedAt = new Date(Date.now() - (o.minutesAgo ?? 30) * 60_000);
  await withDb(async (db) => {
    await db.insert(publications).values({ id: publicationId, workspaceId: ws, status: "published", sourceText: "x", repostOverride: o.override ?? null });
    await db.insert(renditions).values({
      id: renditionId,
      publicationId,
      workspaceId: ws,
      socialAccountId: accountId,
      platform,
      position: 0,
      body: "x",
      deliveryKey: newId("dlv"),
      status: "published",
      externalId,
      externalUrl,
      publishedAt,
    });
  });
  return { renditionId, publicationId, publishedAt };
}

/** A policy row written directly (the API's checks are tested elsewhere). */
export async function policyRow(ws: string, source: string[], target: string[], rule = ruleData()) {
  const id = newId("rpp");
  await withDb((db) => db.insert(repostPolicies).values({ id, workspaceId: ws, name: "p", rule, sourceAccountIds: source, targetAccountIds: target }));
  return id;
}

export const attemptsOfRendition = (renditionId: string) => withDb((db) => db.select().from(repostAttempts).where(eq(repostAttempts.renditionId, renditionId)));

export const activityOfRendition = (renditionId: string) =>
  withDb((db) => db.select().from(repostActivity).where(eq(repostActivity.renditionId, renditionId)).orderBy(repostActivity.at, repostActivity.id));

/** Outbox jobs a test queued but will not run (their accounts point nowhere). */
export const discardJobs = (ids: string[]) => (ids.length ? withDb((db) => db.delete(outboxJobs).where(inArray(outboxJobs.id, ids))) : Promise.resolve());

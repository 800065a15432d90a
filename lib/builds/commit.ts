import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { publicationBuilds, publications, socialAccounts } from "../../db/schema";
import type { Tx } from "../db/client";
import { DomainError } from "../errors";
import { newId } from "../ids";
import { attachMedia } from "../publishing/media";
import type { PlannedRendition } from "../publishing/plan";
import { platformsOf, writeRenditions } from "../publishing/save";
import type { BuildRow } from "./build-row";
import type { BuildResultValue } from "./plan-types";

/**
 * Turn a completed build into a draft publication, exactly once: the build row is locked by the
 * caller, and a build that already has its publication answers that one. One rendition per included
 * destination with the planned segments (kept as planned: `format_locked`); accounts gone since the
 * build are left out. Everything in the caller's transaction.
 */
export async function commitBuild(tx: Tx, build: BuildRow, userId: string): Promise<{ publicationId: string; created: boolean }> {
  if (build.publicationId) return { publicationId: build.publicationId, created: false };
  if (build.state !== "completed" || !build.result) {
    throw new DomainError("not-editable", `Only a completed build can be committed; this one is ${build.state}.`);
  }
  const result = build.result as unknown as BuildResultValue;
  const ids = result.destinations.map((d) => d.account_id);
  const live = ids.length
    ? await tx
        .select({ id: socialAccounts.id, platform: socialAccounts.platform })
        .from(socialAccounts)
        .where(and(eq(socialAccounts.workspaceId, build.workspaceId), inArray(socialAccounts.id, ids), isNull(socialAccounts.disconnectedAt)))
    : [];
  const platformOf = new Map(live.map((a) => [a.id, a.platform]));
  const plans: PlannedRendition[] = result.destinations.flatMap((d) => {
    const platform = platformOf.get(d.account_id);
    if (!platform) return [];
    const segments = d.segments.map((s) => ({ title: s.title, body: s.body, url: null, fromSource: false }));
    return [
      {
        socialAccountId: d.account_id,
        platform,
        title: segments[0]?.title ?? null,
        body: segments.map((s) => s.body).join("\n\n"),
        formatLocked: true,
        segments,
      },
    ];
  });
  // Media attach to the whole publication (every rendition carries them), so only what every included
  // destination chose goes on; what only some chose is named in metadata for the editor to decide.
  const mediaPlan = build.mediaPlan ?? {};
  const lists = plans.map((p) => mediaPlan[p.socialAccountId] ?? []);
  const shared = (lists[0] ?? []).filter((id) => lists.every((l) => l.includes(id)));
  const leftOut = [...new Set(lists.flat())].filter((id) => !shared.includes(id));
  const mediaIds = await attachMedia(tx, build.workspaceId, shared, "build.media").catch((err) => {
    if (!(err instanceof DomainError)) throw err;
    throw new DomainError("not-editable", "A media item this build chose is no longer in the library; start a new build.");
  });
  const title = result.destinations[0]?.segments[0]?.title ?? null;
  const [row] = await tx
    .insert(publications)
    .values({
      id: newId("pub"),
      workspaceId: build.workspaceId,
      status: "draft",
      title,
      sourceText: result.canonical_text,
      metadata: leftOut.length ? { build_id: build.id, build_media_not_attached: leftOut } : { build_id: build.id },
      mediaIds,
      platforms: platformsOf(plans),
      createdBy: userId,
    })
    .returning();
  await writeRenditions(tx, row, plans);
  await attachMedia.record(tx, row.workspaceId, row.id, mediaIds);
  await tx
    .update(publicationBuilds)
    .set({ publicationId: row.id, revision: sql`${publicationBuilds.revision} + 1`, updatedAt: sql`now()` })
    .where(eq(publicationBuilds.id, build.id));
  return { publicationId: row.id, created: true };
}

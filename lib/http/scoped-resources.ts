import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import {
  designs,
  imageTemplates,
  media,
  publicationBuilds,
  publications,
  repostGrants,
  repostPolicies,
  socialAccounts,
  videoProjects,
  voiceProfiles,
  webhookEndpoints,
  workspaceMembers,
  type Role,
} from "../../db/schema";
import type { Queryable } from "../db/client";

/**
 * The resources an operation can be scoped by (lib/http/access.ts `resourceInPath`): each lives in a workspace
 * (a grant in two: the one that gave it and the one that received it; either side's members may reach it).
 * `what` names it in a 404's detail; `visible` hides rows that are gone for the API (a disconnected account).
 */
const RESOURCES = {
  publication: { table: publications, id: publications.id, workspaces: [publications.workspaceId], what: "publication" },
  build: { table: publicationBuilds, id: publicationBuilds.id, workspaces: [publicationBuilds.workspaceId], what: "build" },
  media: { table: media, id: media.id, workspaces: [media.workspaceId], what: "media item" },
  "voice-profile": { table: voiceProfiles, id: voiceProfiles.id, workspaces: [voiceProfiles.workspaceId], what: "voice profile" },
  design: { table: designs, id: designs.id, workspaces: [designs.workspaceId], what: "design" },
  template: { table: imageTemplates, id: imageTemplates.id, workspaces: [imageTemplates.workspaceId], what: "template" },
  "video-project": { table: videoProjects, id: videoProjects.id, workspaces: [videoProjects.workspaceId], what: "video project" },
  account: {
    table: socialAccounts,
    id: socialAccounts.id,
    workspaces: [socialAccounts.workspaceId],
    what: "account",
    visible: isNull(socialAccounts.disconnectedAt),
  },
  "repost-policy": { table: repostPolicies, id: repostPolicies.id, workspaces: [repostPolicies.workspaceId], what: "repost policy" },
  "repost-grant": {
    table: repostGrants,
    id: repostGrants.id,
    workspaces: [repostGrants.targetWorkspaceId, repostGrants.sourceWorkspaceId],
    what: "grant",
  },
  "webhook-endpoint": { table: webhookEndpoints, id: webhookEndpoints.id, workspaces: [webhookEndpoints.workspaceId], what: "webhook endpoint" },
} as const;

type Resources = typeof RESOURCES;
export type ScopedKind = keyof Resources;
/** The row of each kind, as `select()` reads it. */
export type ScopedRows = { [K in ScopedKind]: Resources[K]["table"]["$inferSelect"] };

export const scopedWhat = (kind: ScopedKind): string => RESOURCES[kind].what;

/** The caller's best role among `workspaces` (owner first): one index lookup per workspace column. */
function bestRole(userId: string, workspaces: readonly PgColumn[]): SQL<Role | null> {
  const inAny =
    workspaces.length === 1
      ? sql`${workspaceMembers.workspaceId} = ${workspaces[0]}`
      : sql`${workspaceMembers.workspaceId} in (${sql.join([...workspaces], sql`, `)})`;
  return sql<Role | null>`(select ${workspaceMembers.role} from ${workspaceMembers}
    where ${workspaceMembers.userId} = ${userId} and ${inAny}
    order by case ${workspaceMembers.role} when 'owner' then 4 when 'admin' then 3 when 'editor' then 2 else 1 end desc limit 1)`;
}

/**
 * The `kind` resource with id `id`, its workspace (a grant's: the receiving one) and the caller's best role
 * there, in one statement; undefined when
 * there is no such (visible) resource. `lock` takes the row for the rest of the transaction.
 */
export async function loadScoped<K extends ScopedKind>(
  q: Queryable,
  kind: K,
  id: string,
  userId: string,
  lock = false,
): Promise<{ row: ScopedRows[K]; workspaceId: string; role: Role | null } | undefined> {
  const resource: Resources[ScopedKind] = RESOURCES[kind];
  const visible = "visible" in resource ? resource.visible : undefined;
  const query = q
    .select({ row: resource.table, workspaceId: resource.workspaces[0], role: bestRole(userId, resource.workspaces) })
    .from(resource.table)
    .where(and(eq(resource.id, id), visible))
    .limit(1);
  const [found] = lock ? await query.for("update", { of: resource.table }) : await query;
  // RESOURCES[kind] is K's entry, so its row is ScopedRows[K]; TypeScript cannot follow K through the lookup.
  return found as { row: ScopedRows[K]; workspaceId: string; role: Role | null } | undefined;
}

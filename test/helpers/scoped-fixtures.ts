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
} from "../../db/schema";
import { sql } from "drizzle-orm";
import type { ScopedKind } from "../../lib/http/scoped-resources";
import { newId } from "../../lib/ids";
import { withDb } from "./harness";

const emptyJson = sql`'{}'::jsonb`;

/**
 * One resource of every kind an access rule can be scoped by (lib/http/scoped-resources.ts), inserted straight
 * into a workspace: the shared route test only needs them to exist, since the rule answers 404 / 403 before any
 * handler reads them (their JSON documents are empty). `Record<ScopedKind, …>` makes a new kind fail to compile here until it has a fixture.
 */
export async function scopedFixtures(workspaceId: string, ownerId: string): Promise<Record<ScopedKind, string>> {
  return withDb(async (db) => {
    const ids = {
      publication: newId("pub"),
      build: newId("bld"),
      media: newId("med"),
      "voice-profile": newId("vpr"),
      design: newId("dsn"),
      template: newId("tpl"),
      "video-project": newId("vop"),
      account: newId("acc"),
      "repost-policy": newId("rpp"),
      "repost-grant": newId("rpg"),
    } satisfies Record<ScopedKind, string>;
    await db.insert(publications).values({ id: ids.publication, workspaceId, status: "draft", sourceText: "fixture" });
    await db.insert(publicationBuilds).values({ id: ids.build, workspaceId, input: {} });
    await db.insert(media).values({ id: ids.media, workspaceId, objectKey: `fixtures/${ids.media}`, mimeType: "image/png", mediaType: "image", size: 1 });
    await db.insert(voiceProfiles).values({ id: ids["voice-profile"], workspaceId, name: "fixture", definition: emptyJson });
    await db.insert(designs).values({ id: ids.design, workspaceId });
    await db.insert(imageTemplates).values({ id: ids.template, workspaceId, name: "fixture", category: "fixture", document: emptyJson });
    await db.insert(videoProjects).values({ id: ids["video-project"], workspaceId, name: "fixture", document: {} });
    await db.insert(socialAccounts).values({ id: ids.account, workspaceId, platform: "webhook", createdBy: ownerId });
    await db
      .insert(repostPolicies)
      .values({ id: ids["repost-policy"], workspaceId, name: "fixture", rule: emptyJson, sourceAccountIds: [], targetAccountIds: [] });
    await db
      .insert(repostGrants)
      .values({ id: ids["repost-grant"], sourceWorkspaceId: workspaceId, targetWorkspaceId: workspaceId, targetAccountId: ids.account });
    return ids;
  });
}

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
} from "../../db/schema";
import type { RepostRuleData } from "../../db/schema/repost-rule";
import type { VoiceDefinitionValue } from "../../db/schema/voice";
import type { ScopedKind } from "../../lib/http/scoped-resources";
import { emptyVideoDocument } from "../../lib/video/sample";
import { sampleDocument } from "../image-editor-fixtures";
import { newId } from "../../lib/ids";
import { withDb } from "./harness";

/** Valid stored documents, so that an answer reading them satisfies its schema (lib/http/response-check.ts). */
const voiceDefinition: VoiceDefinitionValue = {
  boundaries: [],
  disliked_patterns: [],
  expertise: [],
  forbidden_phrases: [],
  opinions: [],
  recurring_expressions: [],
  traits: [],
  vocabulary: [],
  formality: "",
  humor: "",
  identity_summary: "",
  preferred_language: "en",
  corrections: [],
  examples: [],
  interview_answers: [],
};
const repostRule: RepostRuleData = {
  threshold_mode: "all",
  min_likes: 1,
  min_reposts: 0,
  min_comments: 0,
  min_views: 0,
  evaluation_window_seconds: 86_400,
  require_plateau: false,
  plateau_checks: 3,
  delay_seconds: 0,
  stages: [{ delay_seconds: 0, unrepost_previous: false }],
};

/**
 * One resource of every kind an access rule can be scoped by (lib/http/scoped-resources.ts), inserted straight
 * into a workspace: the shared route test only needs them to exist, since the rule answers 404 / 403 before any
 * handler reads them; where one does (a caller of the right role), its documents are valid. `Record<ScopedKind, …>` makes a new kind fail to compile here until it has a fixture.
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
      "webhook-endpoint": newId("whe"),
    } satisfies Record<ScopedKind, string>;
    await db.insert(publications).values({ id: ids.publication, workspaceId, status: "draft", sourceText: "fixture" });
    await db.insert(publicationBuilds).values({ id: ids.build, workspaceId, input: {} });
    await db.insert(media).values({ id: ids.media, workspaceId, objectKey: `fixtures/${ids.media}`, mimeType: "image/png", mediaType: "image", size: 1 });
    await db.insert(voiceProfiles).values({ id: ids["voice-profile"], workspaceId, name: "fixture", definition: voiceDefinition });
    await db.insert(designs).values({ id: ids.design, workspaceId });
    await db.insert(imageTemplates).values({ id: ids.template, workspaceId, name: "fixture", category: "fixture", document: sampleDocument() });
    await db.insert(videoProjects).values({ id: ids["video-project"], workspaceId, name: "fixture", document: emptyVideoDocument() });
    await db.insert(socialAccounts).values({ id: ids.account, workspaceId, platform: "webhook", createdBy: ownerId });
    await db
      .insert(repostPolicies)
      .values({ id: ids["repost-policy"], workspaceId, name: "fixture", rule: repostRule, sourceAccountIds: [], targetAccountIds: [] });
    await db
      .insert(repostGrants)
      .values({ id: ids["repost-grant"], sourceWorkspaceId: workspaceId, targetWorkspaceId: workspaceId, targetAccountId: ids.account });
    await db.insert(webhookEndpoints).values({
      id: ids["webhook-endpoint"],
      workspaceId,
      url: "https://hooks.example.com/herald",
      events: ["publication.published"],
      secretCiphertext: "fixture",
    });
    return ids;
  });
}

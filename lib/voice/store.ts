import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { socialAccounts, voiceProfileAccounts, voiceProfiles } from "../../db/schema";
import type { Queryable } from "../db/client";

export type VoiceProfileRow = typeof voiceProfiles.$inferSelect;

/**
 * Serialise the voice-profile writes of one workspace for the rest of the transaction. Default switches,
 * creations, replacements and deletions each read "who is default" or "who holds this account" and act on
 * it; under the lock those reads stay true until commit, so concurrent writers can leave neither two
 * defaults nor none. The partial unique index backs this up in the database.
 */
export async function lockWorkspaceVoices(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`voice_profiles:${workspaceId}`}, 0))`);
}

/** Assigned account ids per profile, in the order they were given. */
export async function accountIdsOf(q: Queryable, profileIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(profileIds.map((id) => [id, []]));
  if (profileIds.length === 0) return out;
  const rows = await q
    .select({ profileId: voiceProfileAccounts.voiceProfileId, accountId: voiceProfileAccounts.socialAccountId })
    .from(voiceProfileAccounts)
    .where(inArray(voiceProfileAccounts.voiceProfileId, profileIds))
    .orderBy(asc(voiceProfileAccounts.voiceProfileId), asc(voiceProfileAccounts.position));
  for (const row of rows) out.get(row.profileId)?.push(row.accountId);
  return out;
}

/** Which of `accountIds` are social accounts of the workspace. */
export async function accountsInWorkspace(q: Queryable, workspaceId: string, accountIds: string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const rows = await q
    .select({ id: socialAccounts.id })
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), inArray(socialAccounts.id, [...new Set(accountIds)])));
  return new Set(rows.map((r) => r.id));
}

/** The profile each of `accountIds` is assigned to, if any. */
export async function profileHolding(q: Queryable, accountIds: string[]): Promise<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await q
    .select({ accountId: voiceProfileAccounts.socialAccountId, profileId: voiceProfileAccounts.voiceProfileId })
    .from(voiceProfileAccounts)
    .where(inArray(voiceProfileAccounts.socialAccountId, [...new Set(accountIds)]));
  return new Map(rows.map((r) => [r.accountId, r.profileId]));
}

/** Make a profile's assignments exactly `accountIds`, in that order. */
export async function replaceAssignments(tx: Queryable, profile: { id: string; workspaceId: string }, accountIds: string[]): Promise<void> {
  await tx.delete(voiceProfileAccounts).where(eq(voiceProfileAccounts.voiceProfileId, profile.id));
  if (accountIds.length === 0) return;
  await tx
    .insert(voiceProfileAccounts)
    .values(accountIds.map((socialAccountId, position) => ({ voiceProfileId: profile.id, socialAccountId, workspaceId: profile.workspaceId, position })));
}

/** Whether the workspace has a default profile now. */
export async function hasDefault(q: Queryable, workspaceId: string): Promise<boolean> {
  const [row] = await q
    .select({ id: voiceProfiles.id })
    .from(voiceProfiles)
    .where(and(eq(voiceProfiles.workspaceId, workspaceId), eq(voiceProfiles.isDefault, true)))
    .limit(1);
  return Boolean(row);
}

/**
 * The voice each account writes in: the profile it is assigned to, else the workspace default, else none.
 * For builds and composers that need a destination's voice.
 */
export async function voicesForAccounts(q: Queryable, workspaceId: string, accountIds: string[]): Promise<Map<string, VoiceProfileRow | null>> {
  const holders = await profileHolding(q, accountIds);
  const assigned = [...new Set(holders.values())];
  const isDefault = eq(voiceProfiles.isDefault, true);
  const rows = await q
    .select()
    .from(voiceProfiles)
    .where(and(eq(voiceProfiles.workspaceId, workspaceId), assigned.length ? or(isDefault, inArray(voiceProfiles.id, assigned)) : isDefault));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const fallback = rows.find((r) => r.isDefault) ?? null;
  return new Map(accountIds.map((id) => [id, byId.get(holders.get(id) ?? "") ?? fallback]));
}

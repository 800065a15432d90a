import { and, eq, inArray, isNull } from "drizzle-orm";
import { media, socialAccounts, voiceProfiles } from "../../db/schema";
import type { Queryable } from "../db/client";
import { type FieldError, invalidFields } from "../errors";
import { checkOutboundUrl } from "../net/outbound-url";
import { voicesForAccounts } from "../voice/store";
import type { BuildInputValue, InputSource } from "./plan-types";
import { outputProfiles } from "./profiles";
import { voiceSnapshot } from "./voice-snapshot";

export interface BuildRequest {
  idea?: string;
  sources?: { kind: "text" | "url" | "media"; label?: string; text?: string; url?: string; media_id?: string; publishable?: boolean }[];
  destination_account_ids: string[];
  direction?: Partial<Record<"angle" | "audience" | "media_preference" | "outcome" | "tone_adjustment", string>>;
  voice_profile_id?: string;
}

export interface AssembledBuild {
  input: BuildInputValue;
  assets: { media_id: string; role: string; may_publish: boolean }[];
  contextUrls: string[];
  voiceProfileId: string | null;
}

/**
 * Build.input (SPEC.md 2.6) from a request, checked against the workspace: every account, media item
 * and voice named must be this workspace's (422 naming the field otherwise, so nothing of another
 * workspace is ever read). URL sources are only checked here; the consumer fetches them.
 */
export async function assembleInput(q: Queryable, workspaceId: string, body: BuildRequest, allowPrivateUrls: boolean): Promise<AssembledBuild> {
  const errors: FieldError[] = [];
  const requested = body.sources ?? [];
  if (!body.idea?.trim() && requested.length === 0) {
    errors.push({ location: "body.idea", message: "Give an idea or at least one source to build from" });
  }
  requested.forEach((s, i) => {
    const at = `body.sources[${i}]`;
    if (s.kind === "text" && !s.text?.trim()) errors.push({ location: `${at}.text`, message: "A text source needs text" });
    if (s.kind === "url") {
      const verdict = s.url ? checkOutboundUrl(s.url, allowPrivateUrls) : { ok: false, reason: "is required for a url source" };
      if (!verdict.ok) errors.push({ location: `${at}.url`, message: `The URL ${verdict.reason}`, value: s.url?.slice(0, 200) });
    }
    if (s.kind === "media" && !s.media_id) errors.push({ location: `${at}.media_id`, message: "A media source needs media_id" });
  });

  const accountIds = [...new Set(body.destination_account_ids)];
  const accounts = await q
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), inArray(socialAccounts.id, accountIds), isNull(socialAccounts.disconnectedAt)));
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  body.destination_account_ids.forEach((id, i) => {
    if (!accountById.has(id)) errors.push({ location: `body.destination_account_ids[${i}]`, message: "No such account in this workspace", value: id });
    else if (body.destination_account_ids.indexOf(id) !== i) errors.push({ location: `body.destination_account_ids[${i}]`, message: "Named twice", value: id });
  });

  const mediaIds = [...new Set(requested.flatMap((s) => (s.kind === "media" && s.media_id ? [s.media_id] : [])))];
  const mediaRows = mediaIds.length
    ? await q
        .select()
        .from(media)
        .where(and(eq(media.workspaceId, workspaceId), inArray(media.id, mediaIds), isNull(media.trashedAt)))
    : [];
  const mediaById = new Map(mediaRows.map((m) => [m.id, m]));
  requested.forEach((s, i) => {
    if (s.kind === "media" && s.media_id && !mediaById.has(s.media_id)) {
      errors.push({ location: `body.sources[${i}].media_id`, message: "No such media item in this workspace's library", value: s.media_id });
    }
  });

  let chosenVoice: typeof voiceProfiles.$inferSelect | null = null;
  if (body.voice_profile_id) {
    [chosenVoice = null] = await q
      .select()
      .from(voiceProfiles)
      .where(and(eq(voiceProfiles.workspaceId, workspaceId), eq(voiceProfiles.id, body.voice_profile_id)))
      .limit(1);
    if (!chosenVoice) errors.push({ location: "body.voice_profile_id", message: "No such Voice Profile in this workspace", value: body.voice_profile_id });
  }
  if (errors.length) throw invalidFields(errors);

  const voices = chosenVoice ? null : await voicesForAccounts(q, workspaceId, accountIds);
  const sources: InputSource[] = requested.map((s, i) => {
    const id = `src_${i + 1}`;
    const publishable = s.publishable ?? true;
    if (s.kind === "media") {
      const m = mediaById.get(s.media_id!)!;
      return { id, kind: "media", label: s.label ?? m.originalFilename ?? m.id, mime_type: m.mimeType, text: m.altText, publishable };
    }
    if (s.kind === "url") return { id, kind: "url", label: s.label ?? s.url!, mime_type: null, text: null, publishable };
    return { id, kind: "text", label: s.label ?? `Text ${i + 1}`, mime_type: "text/plain", text: s.text!, publishable };
  });
  const d = body.direction ?? {};
  const input: BuildInputValue = {
    destination_policy: "explicit",
    destinations: body.destination_account_ids.map((id) => {
      const a = accountById.get(id)!;
      const voice = chosenVoice ?? voices!.get(id) ?? null;
      return {
        account_id: id,
        label: a.username ? `@${a.username}` : `${a.platform} account ${id}`,
        platform: a.platform,
        allowed_output_profiles: outputProfiles(a.platform, a.textLimit),
        voice: voice ? voiceSnapshot(voice) : null,
      };
    }),
    direction: {
      angle: d.angle ?? null,
      audience: d.audience ?? null,
      media_preference: d.media_preference ?? null,
      outcome: d.outcome ?? null,
      tone_adjustment: d.tone_adjustment ?? null,
    },
    idea: body.idea?.trim() ? body.idea : null,
    sources,
  };
  return {
    input,
    assets: requested.flatMap((s, i) => (s.kind === "media" ? [{ media_id: s.media_id!, role: "source", may_publish: sources[i].publishable }] : [])),
    contextUrls: requested.flatMap((s) => (s.kind === "url" ? [s.url!] : [])),
    voiceProfileId: chosenVoice?.id ?? null,
  };
}

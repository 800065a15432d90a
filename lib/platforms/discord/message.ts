import { segmentText } from "../../providers/text";
import type { MediaRef, SegmentToPublish } from "../../providers/types";

/**
 * One segment as a Discord Execute Webhook request (https://discord.com/developers/docs/resources/webhook#execute-webhook
 * and reference#uploading-files): pure functions, so the message body and the multipart layout are tested
 * without a server.
 */

/** `content` holds at most 2,000 characters. */
export const DISCORD_TEXT_LIMIT = 2000;
/** Attachments per message. */
export const DISCORD_MAX_ATTACHMENTS = 10;
/** Discord's default upload limit per file (servers without boosts). */
export const DISCORD_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** An attachment's `description` (its alt text) holds at most 1,024 characters. */
export const DISCORD_MAX_DESCRIPTION = 1024;

/**
 * Length as Discord counts `content`: Unicode code points. Never fewer than graphemes, so a segment that
 * fits here fits there too (counting graphemes would let an emoji sequence through that Discord refuses).
 */
export const discordLength = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

export interface DiscordPayload {
  content: string;
  /** No @everyone, @here, role or user pings from published text: a post is not a page. */
  allowed_mentions: { parse: string[] };
  attachments?: { id: number; filename: string; description?: string }[];
}

/** The JSON part of a segment's message (the `payload_json` of a multipart request when it has files). */
export function messagePayload(segment: Pick<SegmentToPublish, "body" | "url">, media: Pick<MediaRef, "mime_type" | "alt_text">[] = []): DiscordPayload {
  const payload: DiscordPayload = { content: segmentText(segment), allowed_mentions: { parse: [] } };
  if (media.length) {
    payload.attachments = media.map((m, id) => ({
      id,
      filename: attachmentName(id, m.mime_type),
      ...(m.alt_text ? { description: m.alt_text.slice(0, DISCORD_MAX_DESCRIPTION) } : {}),
    }));
  }
  return payload;
}

/** A file name with the type's extension: Discord previews an attachment as an image or video by its name. */
export function attachmentName(index: number, mimeType: string): string {
  const ext = (mimeType.split("/")[1] ?? "").replace(/\+.*$/, "").replace(/[^a-z0-9]/gi, "") || "bin";
  return `media-${index}.${ext === "jpeg" ? "jpg" : ext === "quicktime" ? "mov" : ext}`;
}

/**
 * The multipart body for a message with files: `payload_json` carries the JSON params, and each file is the
 * part `files[n]` whose `n` is its attachment's `id` (Discord's "Uploading Files").
 */
export function multipartBody(payload: DiscordPayload, files: { bytes: Uint8Array<ArrayBuffer>; mimeType: string }[]): FormData {
  const form = new FormData();
  form.append("payload_json", JSON.stringify(payload));
  files.forEach((file, n) => {
    const filename = payload.attachments?.[n]?.filename ?? attachmentName(n, file.mimeType);
    form.append(`files[${n}]`, new Blob([file.bytes], { type: file.mimeType }), filename);
  });
  return form;
}

/**
 * When a 429 says to come back: `X-RateLimit-Reset-After` (seconds, with decimals), else the body's
 * `retry_after` (the same, as a number), else `Retry-After` (whole seconds). Pure.
 */
export function discordRetryAt(headers: Headers, body: { retry_after?: unknown } | null, now = Date.now()): Date | undefined {
  const candidates = [headers.get("x-ratelimit-reset-after"), body?.retry_after, headers.get("retry-after")];
  for (const c of candidates) {
    const seconds = typeof c === "number" ? c : typeof c === "string" && /^\d+(\.\d+)?$/.test(c.trim()) ? Number(c) : Number.NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return new Date(now + Math.round(seconds * 1000));
  }
  return undefined;
}

import { mediaMaxBytes, MULTIPART_OVERHEAD_BYTES } from "../media/limits";

/** Largest JSON (or other non-multipart) request body by default: 1 MiB, MAX_BODY_BYTES overrides it. */
export const DEFAULT_JSON_MAX_BYTES = 1024 * 1024;

type LimitEnv = { MAX_BODY_BYTES?: unknown; MEDIA_MAX_BYTES?: unknown };

/** The JSON body limit: the group Workers' body gate (lib/http/body-gate.ts) and the gateway both read it here. */
export function jsonMaxBytes(env: LimitEnv | undefined): number {
  const configured = Number(env?.MAX_BODY_BYTES);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_JSON_MAX_BYTES;
}

export const isMultipart = (contentType: string | null | undefined) => /^multipart\/form-data\b/i.test((contentType ?? "").trim());

/**
 * The most a request may carry, by its Content-Type: a multipart upload the media limit and its framing (as the upload
 * route, functions/media/upload.ts, counts it), any other body the JSON limit. The 413's detail names that limit.
 */
export function requestBodyLimit(env: LimitEnv | undefined, contentType: string | null | undefined): { maxBytes: number; detail: string } {
  if (isMultipart(contentType)) {
    const media = mediaMaxBytes({ MEDIA_MAX_BYTES: env?.MEDIA_MAX_BYTES as string | undefined });
    return { maxBytes: media + MULTIPART_OVERHEAD_BYTES, detail: `Media uploads are limited to ${media} bytes (MEDIA_MAX_BYTES); nothing was stored.` };
  }
  const max = jsonMaxBytes(env);
  return { maxBytes: max, detail: `Request bodies are limited to ${max} bytes.` };
}

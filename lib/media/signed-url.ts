import { fromBase64Url, toBase64Url } from "../crypto";
import type { Env } from "../env";
import { mediaFileUrl } from "./item";

/**
 * Signed media file URLs: `GET /media/{id}/file?expires=…&signature=…` serves the bytes without a
 * token, so a platform (Bluesky, Mastodon) or a webhook receiver can fetch what a publication carries.
 * The signature is HMAC-SHA256 over `media-file:{id}:{expires}` under a key derived from
 * INSTANCE_SECRET_KEY with its own label, so it is never the key that encrypts secrets at rest.
 */

const encoder = new TextEncoder();

/**
 * A platform fetches what a delivery names while that attempt runs (a Meta container, TikTok's PULL_FROM_URL,
 * Herald's own chunked uploads); each attempt signs afresh, so minutes are enough and a leaked URL dies soon.
 */
export const PLATFORM_MEDIA_URL_TTL_SECONDS = 30 * 60;

/** A webhook receiver may queue the work and fetch later, so its URLs last a day. */
export const WEBHOOK_MEDIA_URL_TTL_SECONDS = 24 * 60 * 60;

/**
 * Expiry is rounded up to a sixth of the TTL, so attempts close together sign the same URL (a retried webhook
 * carries the same body); a URL is then valid for between `ttl` and `ttl` × 7/6.
 */
const granularity = (ttlSeconds: number) => Math.max(60, Math.floor(Math.abs(ttlSeconds) / 6));

async function signingKey(env: Pick<Env, "INSTANCE_SECRET_KEY">): Promise<CryptoKey> {
  const secret = env.INSTANCE_SECRET_KEY;
  if (!secret || secret.length < 16) throw new Error("INSTANCE_SECRET_KEY is missing or too short");
  const material = await crypto.subtle.digest("SHA-256", encoder.encode(`herald-media-url-v1:${secret}`));
  return crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

const message = (id: string, expires: number) => encoder.encode(`media-file:${id}:${expires}`);

export async function signedMediaUrl(
  env: Pick<Env, "INSTANCE_SECRET_KEY">,
  baseUrl: string,
  mediaId: string,
  ttlSeconds = PLATFORM_MEDIA_URL_TTL_SECONDS,
  now = Date.now(),
): Promise<string> {
  const step = granularity(ttlSeconds);
  const expires = Math.ceil((Math.floor(now / 1000) + ttlSeconds) / step) * step;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(env), message(mediaId, expires)));
  return `${mediaFileUrl(baseUrl.replace(/\/+$/, ""), encodeURIComponent(mediaId))}?expires=${expires}&signature=${toBase64Url(mac)}`;
}

/**
 * True only for an unexpired signature made by this instance for this item. The comparison is
 * crypto.subtle.verify's, which does not leak how much of a guess was right.
 */
export async function verifyMediaSignature(
  env: Pick<Env, "INSTANCE_SECRET_KEY">,
  id: string,
  expires: string | undefined,
  signature: string | undefined,
  now = Date.now(),
): Promise<boolean> {
  if (!expires || !signature || !/^[1-9]\d{0,11}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return false;
  const at = Number(expires);
  if (at * 1000 <= now) return false;
  let key: CryptoKey;
  try {
    key = await signingKey(env);
  } catch {
    return false; // no instance secret: nothing can have been signed
  }
  let mac: Uint8Array<ArrayBuffer>;
  try {
    mac = fromBase64Url(signature);
  } catch {
    return false; // not the one spelling we issue
  }
  return crypto.subtle.verify("HMAC", key, mac, message(id, at));
}

/** Seconds until a signed URL expires (for Cache-Control), never negative. */
export const secondsLeft = (expires: string, now = Date.now()) => Math.max(0, Number(expires) - Math.floor(now / 1000));

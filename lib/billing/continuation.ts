/**
 * Purchase-choice continuation tokens (CONTRACT.md §8): the facts of a choice, bound to one user, valid 30
 * minutes, signed with HMAC-SHA256 under a key derived from INSTANCE_SECRET_KEY (never the key itself).
 * Format: base64url(JSON facts) "." base64url(MAC). Web Crypto only, so it runs in Workers and Node alike.
 */
import { fromBase64Url, toBase64Url } from "../crypto";
import type { Interval } from "./plans";

export const CONTINUATION_TTL_MS = 30 * 60 * 1000;

export interface PurchaseFacts {
  plan_id: string;
  interval: Interval;
  price: { amount_minor: number; currency: string };
  trial: { days: number; eligible: boolean };
  payment: { provider: string; required_now: boolean };
  expires_at: string;
}

interface Payload extends PurchaseFacts {
  v: 1;
  sub: string;
  nonce: string;
}

const encoder = new TextEncoder();

async function macKey(instanceKey: string): Promise<CryptoKey> {
  // Derive a purpose-bound key: HMAC(instance key, label). A token key never equals the encryption key.
  const root = await crypto.subtle.importKey("raw", encoder.encode(instanceKey), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const derived = await crypto.subtle.sign("HMAC", root, encoder.encode("herald/billing/purchase-choice/v1"));
  return crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

export async function signContinuation(instanceKey: string, userId: string, facts: PurchaseFacts): Promise<string> {
  const nonce = toBase64Url(crypto.getRandomValues(new Uint8Array(12)));
  const payload: Payload = { v: 1, sub: userId, nonce, ...facts };
  const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
  const mac = await crypto.subtle.sign("HMAC", await macKey(instanceKey), encoder.encode(body));
  return `${body}.${toBase64Url(new Uint8Array(mac))}`;
}

export type ContinuationCheck = { ok: true; facts: PurchaseFacts } | { ok: false; reason: "malformed" | "signature" | "expired" | "other-user" };

/** The facts of a token this instance signed for this user and that has not expired. */
export async function verifyContinuation(instanceKey: string, userId: string, token: string, now = new Date()): Promise<ContinuationCheck> {
  const parts = token.split(".");
  if (parts.length !== 2 || !/^[\w-]+$/.test(parts[0]) || !/^[\w-]+$/.test(parts[1])) return { ok: false, reason: "malformed" };
  let mac: Uint8Array<ArrayBuffer>;
  try {
    mac = fromBase64Url(parts[1]);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const valid = await crypto.subtle.verify("HMAC", await macKey(instanceKey), mac, encoder.encode(parts[0]));
  if (!valid) return { ok: false, reason: "signature" };
  let payload: Payload;
  try {
    payload = JSON.parse(new TextDecoder().decode(fromBase64Url(parts[0])));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (payload?.v !== 1) return { ok: false, reason: "malformed" };
  if (payload.sub !== userId) return { ok: false, reason: "other-user" };
  const expires = Date.parse(payload.expires_at);
  if (!Number.isFinite(expires) || expires <= now.getTime()) return { ok: false, reason: "expired" };
  const { plan_id, interval, price, trial, payment, expires_at } = payload;
  return { ok: true, facts: { plan_id, interval, price, trial, payment, expires_at } };
}

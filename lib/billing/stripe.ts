/**
 * Stripe over its REST API with fetch (no SDK): hosted Checkout Sessions, and webhook signatures
 * (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<payload>" keyed by the whsec_ secret>`).
 */
import { secretsEqual, toHex } from "../crypto";
import { DomainError } from "../errors";

export const STRIPE_DEFAULT_BASE = "https://api.stripe.com";
/** Largest accepted distance between a signature's timestamp and now. */
export const SIGNATURE_TOLERANCE_S = 300;

const encoder = new TextEncoder();

/** Stripe's form encoding of nested parameters: `a[b][0][c]=v`. */
export function formEncode(params: Record<string, unknown>, prefix = ""): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (Array.isArray(value))
      value.forEach((v, i) =>
        out.push(
          ...(typeof v === "object"
            ? formEncode(v as Record<string, unknown>, `${name}[${i}]`)
            : [`${encodeURIComponent(`${name}[${i}]`)}=${encodeURIComponent(String(v))}`]),
        ),
      );
    else if (typeof value === "object") out.push(...formEncode(value as Record<string, unknown>, name));
    else out.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  return out;
}

export interface CheckoutSessionRequest {
  apiBase: string;
  secretKey: string;
  /** Sent as Stripe's Idempotency-Key, so a retried call returns the same session. */
  idempotencyKey: string;
  params: Record<string, unknown>;
}

export interface CheckoutSession {
  id: string;
  url: string;
  expires_at: number | null;
}

export async function createCheckoutSession(req: CheckoutSessionRequest): Promise<CheckoutSession> {
  let res: Response;
  try {
    res = await fetch(`${req.apiBase.replace(/\/+$/, "")}/v1/checkout/sessions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${req.secretKey}`,
        "content-type": "application/x-www-form-urlencoded",
        "idempotency-key": req.idempotencyKey,
      },
      body: formEncode(req.params).join("&"),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new DomainError("bad-gateway", "The payment provider could not be reached; retry the same request to resume.");
  }
  const body = (await res.json().catch(() => null)) as { id?: unknown; url?: unknown; expires_at?: unknown; error?: { type?: string } } | null;
  if (!res.ok || typeof body?.id !== "string" || typeof body?.url !== "string") {
    throw new DomainError(
      "bad-gateway",
      `The payment provider refused the checkout (HTTP ${res.status}${body?.error?.type ? `, ${body.error.type}` : ""}); retry the same request to resume.`,
    );
  }
  return { id: body.id, url: body.url, expires_at: typeof body.expires_at === "number" ? body.expires_at : null };
}

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
}

/** What a test or a sender needs to sign a payload as Stripe does. */
export async function stripeSignatureHeader(secret: string, payload: string, timestamp: number): Promise<string> {
  return `t=${timestamp},v1=${await hmacHex(secret, `${timestamp}.${payload}`)}`;
}

/** Whether a Stripe-Signature header holds for this exact payload within the tolerance. */
export async function verifyStripeSignature(
  secret: string,
  payload: string,
  header: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  if (!header || header.length > 2000) return false;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(",")) {
    const [k, v] = part.trim().split("=", 2);
    if (k === "t" && /^\d{1,12}$/.test(v ?? "")) t = Number(v);
    else if (k === "v1" && /^[0-9a-f]{64}$/.test(v ?? "")) v1.push(v);
  }
  if (t === null || v1.length === 0 || Math.abs(nowSeconds - t) > SIGNATURE_TOLERANCE_S) return false;
  const expected = await hmacHex(secret, `${t}.${payload}`);
  for (const sig of v1) if (await secretsEqual(sig, expected)) return true;
  return false;
}

import type Stripe from "stripe";
import { DomainError } from "../errors";
import type { StripeConfig } from "./settings";

/**
 * The Stripe API version Herald is written against, pinned: Stripe answers requests and shapes the events it sends
 * to this endpoint in it, whatever the account's default. It must be the version of the installed `stripe` package
 * (its types describe that one only); upgrading the package means reading Stripe's changelog up to its version.
 */
export const STRIPE_API_VERSION = "2026-10-28.endive";

/** Retries of a failed call (network errors, 409, 5xx): every create carries an Idempotency-Key of ours, so a retry never makes a second object. */
const MAX_NETWORK_RETRIES = 2;
const TIMEOUT_MS = 10_000;
/** Stripe's own tolerance for a signature's timestamp. */
export const SIGNATURE_TOLERANCE_S = 300;

type StripeModule = typeof import("stripe");

/** Loaded on first use only, so a Worker that never talks to Stripe never evaluates the SDK. */
let sdk: Promise<StripeModule> | undefined;
const loadSdk = () => (sdk ??= import("stripe"));

/**
 * Stripe's official SDK for one request: its fetch HTTP client (Workers have no Node `http`), the pinned API version
 * and network retries, pointed at `config.apiBase` (Stripe's own origin unless ALLOW_PRIVATE_URLS=true, checked by
 * lib/billing/settings.ts before the secret key is handed out).
 */
export async function stripeClient(config: StripeConfig): Promise<Stripe> {
  const { default: StripeSdk } = await loadSdk();
  const base = new URL(config.apiBase);
  const https = base.protocol === "https:";
  return new StripeSdk(config.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    httpClient: StripeSdk.createFetchHttpClient(),
    host: base.hostname,
    port: base.port ? Number(base.port) : https ? 443 : 80,
    protocol: https ? "https" : "http",
    maxNetworkRetries: MAX_NETWORK_RETRIES,
    timeout: TIMEOUT_MS,
    telemetry: false,
  });
}

/**
 * The event in a webhook's payload when its `Stripe-Signature` verifies under `secret` within the tolerance
 * (`constructEventAsync` with Web Crypto, as Workers have it); null for anything else.
 */
export async function verifiedEvent(payload: string, header: string | undefined, secret: string): Promise<Stripe.Event | null> {
  if (!header || header.length > 2000) return null;
  const { default: StripeSdk } = await loadSdk();
  try {
    return await StripeSdk.webhooks.constructEventAsync(payload, header, secret, SIGNATURE_TOLERANCE_S, StripeSdk.createSubtleCryptoProvider());
  } catch {
    return null;
  }
}

/** A failed Stripe call as 502 `bad-gateway`: Stripe's error type and status, never its message (it may quote what was sent). */
export function paymentProviderFailed(err: unknown, what: string): DomainError {
  const status = (err as { statusCode?: unknown })?.statusCode;
  const type = (err as { type?: unknown })?.type;
  const said = typeof status === "number" ? ` (HTTP ${status}${typeof type === "string" ? `, ${type}` : ""})` : "";
  return new DomainError("bad-gateway", `The payment provider could not ${what}${said}; retry the same request to resume.`);
}

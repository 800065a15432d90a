import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { logEvent } from "../log";
import { liveSettings, STRIPE_API_ORIGIN } from "../settings";

export interface StripeConfig {
  secretKey: string;
  /** An origin: https://api.stripe.com, or a stand-in's when ALLOW_PRIVATE_URLS=true. */
  apiBase: string;
  webhookSecret: string | undefined;
}

export interface BillingSettings {
  enabled: boolean;
  /** Null without a secret key (no payment provider), or when the base URL is not one the key may go to. */
  stripe: StripeConfig | null;
}

const KEYS = ["billing_enabled", "stripe_secret_key", "stripe_webhook_secret", "stripe_api_base"] as const;

/**
 * Billing's settings, read on every call (lib/settings/live.ts): whether billing is on and Stripe's keys. The
 * secret key is only ever handed out with Stripe's own origin, or any origin when ALLOW_PRIVATE_URLS=true, whatever
 * was saved or set in the environment.
 */
export async function billingSettings(env: Env, q: Queryable): Promise<BillingSettings> {
  const settings = await liveSettings(env, q, KEYS);
  const secretKey = settings.get("stripe_secret_key");
  let stripe: StripeConfig | null = null;
  if (secretKey) {
    const apiBase = safeBase(settings.get("stripe_api_base"), env.ALLOW_PRIVATE_URLS === "true");
    if (apiBase) stripe = { secretKey, apiBase, webhookSecret: settings.get("stripe_webhook_secret") };
    else logEvent("warn", "stripe_api_base is not Stripe's origin; the payment provider is treated as not configured", {});
  }
  return { enabled: settings.flag("billing_enabled"), stripe };
}

function safeBase(configured: string | undefined, allowPrivate: boolean): string | null {
  if (!configured) return STRIPE_API_ORIGIN;
  let url: URL;
  try {
    url = new URL(configured);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return url.origin === STRIPE_API_ORIGIN || allowPrivate ? url.origin : null;
}

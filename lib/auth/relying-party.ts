import { publicBaseUrl, type Env } from "../env";

/**
 * The WebAuthn relying party is Herald at PUBLIC_BASE_URL: its host name is the RP ID and its origin the
 * only origin a passkey ceremony is accepted from (CONTRACT §3).
 */
export function relyingParty(env: Env, requestUrl: string): { rpID: string; rpName: string; origin: string; secure: boolean } {
  const base = new URL(publicBaseUrl(env, requestUrl));
  return { rpID: base.hostname, rpName: "Herald", origin: base.origin, secure: base.protocol === "https:" };
}

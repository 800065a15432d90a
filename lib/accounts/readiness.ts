import { canonicalJson, sha256Hex } from "../crypto";
import { hasAdapter } from "../platforms/registry";
import type { ProviderFacts, ProviderSpec } from "./catalog";

export interface Readiness {
  state: string;
  advertisable: boolean;
  analytics_ready: boolean;
  connectable: boolean;
  discoverable: boolean;
  executable: boolean;
  observable: boolean;
  publishable: boolean;
  blockers: { code: string; detail: string }[];
  contract_digest: string;
  facts: ProviderFacts;
}

/**
 * Readiness of a provider. A platform whose adapter is not built yet (lib/platforms/registry.ts) is listed but
 * neither connectable nor publishable; an OAuth platform without the operator's client id and secret
 * (`configured` false) is not connectable. Webhook, Bluesky, Mastodon and Discord need no configuration.
 */
export async function readinessOf(spec: ProviderSpec, configured = true): Promise<Readiness> {
  const contract = {
    platform: spec.platform,
    auth_mode: spec.auth_mode,
    capabilities: spec.capabilities,
    connection_modes: spec.connection_modes,
    facts: spec.facts,
  };
  const built = hasAdapter(spec.platform);
  const blockers = [...spec.blockers];
  if (!built)
    blockers.unshift({ code: "not_implemented", detail: `Herald's ${spec.display_name} adapter is not built yet; connecting answers 501 not-implemented.` });
  if (!configured)
    blockers.unshift({
      code: "provider_not_configured",
      detail: `The operator has not set ${spec.platform}_client_id and ${spec.platform}_client_secret (instance settings).`,
    });
  const connectable = built && configured;
  return {
    state: !built ? "not_implemented" : !configured ? "not_configured" : "ready",
    advertisable: built,
    analytics_ready: built && spec.analytics_ready,
    connectable,
    discoverable: true,
    executable: connectable,
    observable: built && spec.messaging_supported,
    publishable: connectable,
    blockers,
    contract_digest: `sha256:${await sha256Hex(canonicalJson(contract))}`,
    facts: spec.facts,
  };
}

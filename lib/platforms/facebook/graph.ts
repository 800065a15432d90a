import { readJson } from "../../providers/http";
import { graphFetch } from "../threads/api";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Calls to Meta's Graph API (graph.facebook.com, v21.0) for Facebook Pages and Instagram, the token in the
 * Authorization header, never in a URL. Graph errors are the same as on Threads (threads-api.ts graphError:
 * code 190 → authentication, 4/17/32/613 → rate limited with the usage header's wait).
 */

export const META_GRAPH_BASE = "https://graph.facebook.com";
export const META_GRAPH_VERSION = "v21.0";

export const metaBase = (account: Pick<AccountContext, "instanceUrl">) =>
  `${(account.instanceUrl ?? META_GRAPH_BASE).replace(/\/+$/, "")}/${META_GRAPH_VERSION}`;

export type GraphInit = { method?: "GET" | "POST"; params?: Record<string, string>; mutating?: boolean };

/** One authenticated call; POST parameters go form-encoded in the body, GET ones in the query. */
export async function metaGraph<T>(account: AccountContext, path: string, init: GraphInit = {}): Promise<T> {
  return (await readJson<T>(await graphFetch(account, `${metaBase(account)}${path}`, init, "Meta"))) as T;
}

/** An answer's `id`, or an unknown outcome: the call may have taken effect. */
export function idOf(out: { id?: unknown } | null, what: string, mutating = true): string {
  if (typeof out?.id === "string") return out.id;
  throw new ProviderError(`Meta answered ${what} without its id.`, { kind: "unknown", code: "malformed_id", retryable: true, outcomeUnknown: mutating });
}

export const normalise = (text: string) => text.normalize("NFC").replace(/\s+/g, " ").trim();

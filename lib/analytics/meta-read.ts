import { readAnswer } from "../providers/answer";
import { providerFetch, readJson } from "../providers/http";
import { metaBase } from "../providers/meta-graph";
import { graphError } from "../providers/threads-api";
import { ProviderError, type AccountContext } from "../providers/types";
import { arrayOf, objectOf, optionalIdOf, type Shape } from "./answer-shape";
import type { CollectLimits } from "./collect";

/**
 * Reads of Meta's Graph API (graph.facebook.com) for the Facebook Page and Instagram collectors: one authenticated
 * GET, its errors classified as every Graph call is (lib/providers/threads-api.ts graphError), its answer read
 * strictly (./answer-shape.ts) before anything of it is kept.
 */

export async function graphRead(account: AccountContext, path: string, params: Record<string, string>, limits: CollectLimits, what: string): Promise<Shape> {
  const token = account.credentials.access_token;
  if (!token) throw new ProviderError("The Meta account has no access token.", { kind: "configuration", code: "missing_credentials", retryable: false });
  const res = await providerFetch(`${metaBase(account)}${path}?${new URLSearchParams(params)}`, {
    headers: { accept: "application/json", authorization: `Bearer ${token}`, "user-agent": "Herald/1" },
    allowPrivateUrls: account.allowPrivateUrls,
    timeoutMs: limits.timeoutMs,
  });
  if (!res.ok) throw graphError(res, await readJson(res), false, "Meta");
  return objectOf(await readAnswer(res, what), what);
}

/** A Graph list page: its items, and the `after` cursor while `paging.next` says more remain (else null). */
export function graphPage(body: Shape, what: string): { items: Shape[]; next: string | null } {
  const items = arrayOf(body.data ?? [], `${what}: data`).map((v, i) => objectOf(v, `${what}: data[${i}]`));
  const paging: Shape = body.paging === undefined ? {} : objectOf(body.paging, `${what}: paging`);
  const cursors: Shape = paging.cursors === undefined ? {} : objectOf(paging.cursors, `${what}: paging.cursors`);
  return { items, next: paging.next ? optionalIdOf(cursors.after, `${what}: paging.cursors.after`) : null };
}

import { readAnswer } from "../../providers/answer";
import { metaBase } from "./graph";
import { graphFetch } from "../threads/api";
import type { AccountContext } from "../../providers/types";
import { arrayOf, objectOf, optionalIdOf, type Shape } from "../../providers/analytics/answer-shape";
import type { CollectLimits } from "../../providers/analytics/collect";

/**
 * Reads of Meta's Graph API (graph.facebook.com) for the Facebook Page and Instagram collectors: one authenticated
 * GET, its errors classified as every Graph call is (lib/platforms/threads/api.ts graphError), its answer read
 * strictly (./answer-shape.ts) before anything of it is kept.
 */

export async function graphRead(account: AccountContext, path: string, params: Record<string, string>, limits: CollectLimits, what: string): Promise<Shape> {
  const res = await graphFetch(account, `${metaBase(account)}${path}`, { params, timeoutMs: limits.timeoutMs }, "Meta");
  return objectOf(await readAnswer(res, what), what);
}

/** A Graph list page: its items, and the `after` cursor while `paging.next` says more remain (else null). */
export function graphPage(body: Shape, what: string): { items: Shape[]; next: string | null } {
  const items = arrayOf(body.data ?? [], `${what}: data`).map((v, i) => objectOf(v, `${what}: data[${i}]`));
  const paging: Shape = body.paging === undefined ? {} : objectOf(body.paging, `${what}: paging`);
  const cursors: Shape = paging.cursors === undefined ? {} : objectOf(paging.cursors, `${what}: paging.cursors`);
  return { items, next: paging.next ? optionalIdOf(cursors.after, `${what}: paging.cursors.after`) : null };
}

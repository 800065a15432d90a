import { checkOutboundUrl } from "../../net/outbound-url";
import { errorFromResponse, providerFetch, readJson } from "../../providers/http";
import type { AccountContext } from "../../providers/types";

/**
 * What a Mastodon-API server says about itself: its domain, its status text limit
 * (`configuration.statuses.max_characters` of /api/v2/instance, else /api/v1/instance, where Pleroma and
 * Akkoma also say `max_toot_chars`) and its software (NodeInfo, else the version string).
 */
export interface InstanceFacts {
  domain: string | null;
  maxCharacters: number | null;
  software: string | null;
}

type Ctx = Pick<AccountContext, "instanceUrl" | "allowPrivateUrls">;

async function getJson<T>(ctx: Ctx, url: string): Promise<{ status: number; body: T | null; res: Response }> {
  const res = await providerFetch(url, {
    headers: { accept: "application/json", "user-agent": "Herald/1" },
    allowPrivateUrls: ctx.allowPrivateUrls,
    timeoutMs: 10_000,
  });
  return { status: res.status, body: res.ok ? await readJson<T>(res) : (await res.body?.cancel(), null), res };
}

const positive = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null);

/** "2.7.2 (compatible; Pleroma 2.5.0)" → "pleroma"; a bare Mastodon version → "mastodon". */
export function softwareFromVersion(version: unknown): string | null {
  if (typeof version !== "string") return null;
  const compatible = /compatible;\s*([A-Za-z][\w-]*)/.exec(version);
  if (compatible) return compatible[1].toLowerCase();
  return /^\d+\.\d+/.test(version) ? "mastodon" : null;
}

async function nodeInfoSoftware(ctx: Ctx, base: string): Promise<string | null> {
  try {
    const index = await getJson<{ links?: { rel?: string; href?: string }[] }>(ctx, `${base}/.well-known/nodeinfo`);
    const links = (index.body?.links ?? []).filter((l) => typeof l.href === "string" && /nodeinfo\.diaspora\.software\/ns\/schema\/2\./.test(l.rel ?? ""));
    const href = links.sort((a, b) => (b.rel ?? "").localeCompare(a.rel ?? ""))[0]?.href;
    if (!href || !checkOutboundUrl(href, ctx.allowPrivateUrls).ok) return null;
    const info = await getJson<{ software?: { name?: unknown } }>(ctx, href);
    const name = info.body?.software?.name;
    return typeof name === "string" && name.length <= 100 ? name.toLowerCase() : null;
  } catch {
    // NodeInfo is optional; the version string is the fallback.
    return null;
  }
}

export async function readInstanceFacts(ctx: Ctx): Promise<InstanceFacts> {
  const base = new URL(ctx.instanceUrl!).origin;
  const v2 = await getJson<{ domain?: string; version?: string; configuration?: { statuses?: { max_characters?: number } } }>(ctx, `${base}/api/v2/instance`);
  let domain: string | null = null;
  let maxCharacters: number | null = null;
  let version: unknown = null;
  if (v2.body) {
    domain = typeof v2.body.domain === "string" ? v2.body.domain : null;
    maxCharacters = positive(v2.body.configuration?.statuses?.max_characters);
    version = v2.body.version;
  } else if (v2.status === 404 || v2.status === 410 || v2.status === 400) {
    // Older Mastodon (before 4.0) and several other servers only have v1.
    const v1 = await getJson<{ uri?: string; version?: string; max_toot_chars?: number; configuration?: { statuses?: { max_characters?: number } } }>(
      ctx,
      `${base}/api/v1/instance`,
    );
    if (!v1.body) throw errorFromResponse(v1.res, { providerName: "The Mastodon server" });
    domain = typeof v1.body.uri === "string" ? v1.body.uri.replace(/^https?:\/\//, "") : null;
    maxCharacters = positive(v1.body.configuration?.statuses?.max_characters) ?? positive(v1.body.max_toot_chars);
    version = v1.body.version;
  } else {
    throw errorFromResponse(v2.res, { providerName: "The Mastodon server" });
  }
  const software = (await nodeInfoSoftware(ctx, base)) ?? softwareFromVersion(version);
  return { domain, maxCharacters, software };
}

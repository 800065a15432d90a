import { startMastodon, type MastodonPeer } from "../../peers/mastodon-server";
import type { ConnectedAccount, PlatformPost, ProviderDriver } from "../driver";
import { connectAccount } from "../herald";
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from "./fault-proxy";

/**
 * Mastodon against the test double written from the Mastodon API documentation (test/peers/mastodon-server.ts:
 * no Mastodon server can run here), reached through a fault proxy that answers as Mastodon does on a bad day
 * (a revoked token's 401, Rack::Attack's 429 with X-RateLimit-Reset as an ISO 8601 time) and records the media
 * uploads (the double keeps no bytes), so the driver can read what the server received.
 */

let mastodon: MastodonPeer;
let proxy: FaultProxy;
const tokens = new Map<string, string>();
const bearer = (account: ConnectedAccount) => `Bearer ${tokens.get(account.id)}`;
const postsStatus = (account: ConnectedAccount) => (r: ProxiedRequest) =>
  r.method === "POST" && r.path.startsWith("/api/v1/statuses") && r.headers.authorization === bearer(account);

/** The file and description of the upload whose answer was attachment `id` (POST /api/v2/media, multipart). */
async function upload(id: string): Promise<{ bytes: Uint8Array; altText: string | null }> {
  for (const r of proxy.requests) {
    if (r.method !== "POST" || !r.path.startsWith("/api/v2/media") || !r.upstream) continue;
    if (JSON.parse(r.upstream.body.toString("utf8")).id !== id) continue;
    const form = await new Request("http://mastodon.test/", {
      method: "POST",
      headers: { "content-type": String(r.headers["content-type"]) },
      body: new Uint8Array(r.body),
    }).formData();
    const file = form.get("file");
    const description = form.get("description");
    return {
      bytes: file instanceof Blob ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(),
      altText: typeof description === "string" ? description : null,
    };
  }
  throw new Error(`no upload answered with attachment ${id}`);
}

export const mastodonDriver: ProviderDriver = {
  platform: "mastodon",
  label: "mastodon (documented test double)",
  textLimit: 500,
  threads: { kind: "replies" },
  images: { supported: true },
  timeoutOutcome: "reconciled",
  tokenRefresh: { supported: false, reason: "access tokens that do not expire; nothing to refresh" },

  async start() {
    mastodon = await startMastodon();
    proxy = await startFaultProxy(mastodon.url);
  },
  async stop() {
    await proxy?.stop();
    await mastodon?.stop();
  },

  async connect(ws) {
    const who = mastodon.addAccount();
    const id = await connectAccount(ws, { platform: "mastodon", instance_url: proxy.url, access_token: who.token });
    tokens.set(id, who.token);
    return { id, platformRef: who.id, secrets: [who.token] };
  },

  async posts(account) {
    const out: PlatformPost[] = [];
    for (const s of mastodon.statusesOf(account.platformRef)) {
      out.push({ id: s.id, text: s.text, replyTo: s.in_reply_to_id, media: await Promise.all(s.media_attachments.map((m) => upload(m.id))) });
    }
    return out;
  },

  faults: {
    async unauthorized(account) {
      const token = bearer(account);
      proxy.arm(
        (r) => r.headers.authorization === token,
        { answer: { status: 401, body: JSON.stringify({ error: "The access token was revoked" }) } },
        Infinity,
      );
    },
    async rateLimitNext(account, resetAt) {
      proxy.arm(postsStatus(account), {
        answer: {
          status: 429,
          headers: { "x-ratelimit-limit": "300", "x-ratelimit-remaining": "0", "x-ratelimit-reset": resetAt.toISOString() },
          body: JSON.stringify({ error: "Too many requests" }),
        },
      });
    },
    async hangAfterAcceptingNext(account) {
      proxy.arm(postsStatus(account), "forward-then-hang");
    },
    unanswered: (account) => proxy.requests.filter((r) => postsStatus(account)(r) && r.upstream !== undefined && r.answered === 0).length,
  },
};

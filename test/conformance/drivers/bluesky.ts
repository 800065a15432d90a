import { forgetSessions } from "../../../lib/platforms/bluesky/xrpc";
import { startPds, type PdsAccount, type PdsPeer } from "../../peers/bluesky-pds";
import type { ConnectedAccount, PlatformPost, ProviderDriver } from "../driver";
import { connectAccount } from "../herald";
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from "./fault-proxy";

/**
 * Bluesky against a REAL PDS (@atproto/pds, test/peers/bluesky-pds.ts), reached through a fault proxy: a
 * revoked app password is revoked at the PDS itself (com.atproto.server.revokeAppPassword); the 429 is the
 * PDS's own rate-limit answer (RateLimitExceeded with RateLimit-Reset in epoch seconds), which the local PDS
 * runs without; "accepted, never answered" forwards the createRecord and drops the answer.
 */

interface StoredPost {
  uri: string;
  cid: string;
  value: {
    text: string;
    createdAt: string;
    reply?: { parent: { uri: string } };
    embed?: { $type: string; images?: { alt: string; image: { ref: { $link: string } } }[] };
  };
}

let pds: PdsPeer;
let proxy: FaultProxy;
const accounts = new Map<string, PdsAccount>();
const pdsAccount = (account: ConnectedAccount) => accounts.get(account.id)!;
const createsRecordOf = (account: ConnectedAccount) => (r: ProxiedRequest) =>
  r.path.startsWith("/xrpc/com.atproto.repo.createRecord") && JSON.parse(r.body.toString("utf8") || "{}").repo === account.platformRef;

/** Oldest first: top-level posts by creation time, each reply after the post it answers. */
function threadOrder(posts: StoredPost[]): StoredPost[] {
  const byTime = [...posts].sort((a, b) => a.value.createdAt.localeCompare(b.value.createdAt) || a.uri.localeCompare(b.uri));
  const out: StoredPost[] = [];
  const place = (parent: string | null) => {
    for (const p of byTime) {
      if ((p.value.reply?.parent.uri ?? null) === parent && !out.includes(p)) {
        out.push(p);
        place(p.uri);
      }
    }
  };
  place(null);
  return out.concat(byTime.filter((p) => !out.includes(p)));
}

export const blueskyDriver: ProviderDriver = {
  platform: "bluesky",
  label: "bluesky (real PDS)",
  textLimit: 300,
  threads: { kind: "replies" },
  images: { supported: true },
  timeoutOutcome: "reconciled",
  tokenRefresh: { supported: false, reason: "app password sessions, not OAuth tokens" },

  async start() {
    pds = await startPds();
    proxy = await startFaultProxy(pds.url, { rewriteServiceEndpoint: true });
  },
  async stop() {
    await proxy?.stop();
    await pds?.stop();
  },

  async connect(ws) {
    const who = await pds.createAccount("cf");
    const id = await connectAccount(ws, { platform: "bluesky", instance_url: proxy.url, identifier: who.handle, app_password: who.appPassword });
    accounts.set(id, who);
    return { id, platformRef: who.did, secrets: [who.appPassword, who.password] };
  },

  async posts(account) {
    const out: PlatformPost[] = [];
    for (const p of threadOrder((await pds.listPosts(account.platformRef)) as StoredPost[])) {
      const media = [];
      for (const image of p.value.embed?.images ?? []) {
        const blob = await fetch(`${pds.url}/xrpc/com.atproto.sync.getBlob?did=${encodeURIComponent(account.platformRef)}&cid=${image.image.ref.$link}`);
        media.push({ bytes: new Uint8Array(await blob.arrayBuffer()), altText: image.alt });
      }
      out.push({ id: p.uri, text: p.value.text, replyTo: p.value.reply?.parent.uri ?? null, media });
    }
    return out;
  },

  faults: {
    /** The owner revokes the app password at the PDS; Herald's cached session is dropped so that it logs in again. */
    async unauthorized(account) {
      const who = pdsAccount(account);
      const session = await pds.post<{ accessJwt: string }>("com.atproto.server.createSession", { identifier: who.handle, password: who.password });
      const listed = await pds.get<{ passwords: { name: string }[] }>("com.atproto.server.listAppPasswords", {}, session.body.accessJwt);
      for (const { name } of listed.body.passwords) await pds.post("com.atproto.server.revokeAppPassword", { name }, session.body.accessJwt);
      forgetSessions();
    },
    async rateLimitNext(account, resetAt) {
      proxy.arm(createsRecordOf(account), {
        answer: {
          status: 429,
          headers: {
            "ratelimit-limit": "5000",
            "ratelimit-remaining": "0",
            "ratelimit-reset": String(Math.round(resetAt.getTime() / 1000)),
            "ratelimit-policy": "5000;w=3600",
          },
          body: JSON.stringify({ error: "RateLimitExceeded", message: "Rate Limit Exceeded" }),
        },
      });
    },
    async hangAfterAcceptingNext(account) {
      proxy.arm(createsRecordOf(account), "forward-then-hang");
    },
    unanswered: (account) => proxy.requests.filter((r) => createsRecordOf(account)(r) && r.upstream !== undefined && r.answered === 0).length,
  },
};

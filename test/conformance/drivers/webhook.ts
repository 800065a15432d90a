import { startWebhookReceiver, type WebhookPeer } from "../../peers/webhook-receiver";
import type { ConnectedAccount, PlatformPost, ProviderDriver } from "../driver";
import { connectAccount } from "../herald";

/**
 * Webhooks against the local receiver (test/peers/webhook-receiver.ts: verifies Standard Webhooks signatures
 * independently, drops duplicates by webhook-id). Each account gets a receiver of its own with its own secret,
 * so what one account's receiver holds is that account's deliveries.
 */

const receivers = new Map<string, WebhookPeer>();
const receiverOf = (account: ConnectedAccount) => receivers.get(account.id)!;

export const webhookDriver: ProviderDriver = {
  platform: "webhook",
  label: "webhook (local receiver)",
  textLimit: 10_000,
  threads: { kind: "one_delivery", documented: "one signed POST carries every segment, CONTRACT §4" },
  images: { supported: true },
  timeoutOutcome: "resent_same_id",
  tokenRefresh: { supported: false, reason: "no tokens: a URL and a signing secret" },

  async start() {},
  async stop() {
    await Promise.all([...receivers.values()].map((r) => r.stop()));
    receivers.clear();
  },

  async connect(ws) {
    const secret = `whsec_${Buffer.from(`conformance ${Math.random()}`).toString("base64")}`;
    const receiver = await startWebhookReceiver({ secret });
    const id = await connectAccount(ws, { platform: "webhook", url: receiver.url, secret });
    receivers.set(id, receiver);
    return { id, platformRef: receiver.url, secrets: [secret] };
  },

  /** Deliveries the receiver accepted (a repeated webhook-id is one delivery); media are fetched from the URLs they carry. */
  async posts(account) {
    const out: PlatformPost[] = [];
    for (const d of receiverOf(account).deliveries) {
      const segments: { body: string; media: { url: string; alt_text: string | null }[] }[] = d.body?.segments ?? [];
      const media = [];
      for (const m of segments.flatMap((s) => s.media)) media.push({ bytes: new Uint8Array(await (await fetch(m.url)).arrayBuffer()), altText: m.alt_text });
      out.push({
        id: `rcv_${d.webhookId.slice(-12)}`,
        text: segments.map((s) => s.body).join("\n\n"),
        parts: segments.map((s) => s.body),
        replyTo: null,
        media,
      });
    }
    return out;
  },

  faults: {
    async unauthorized(account) {
      receiverOf(account).failNext(8, 401);
    },
    async rateLimitNext(account, resetAt) {
      // A webhook receiver's reset header is Retry-After (CONTRACT §4), in whole seconds.
      receiverOf(account).failNext(1, 429, { retryAfter: Math.round((resetAt.getTime() - Date.now()) / 1000) });
    },
    async hangAfterAcceptingNext(account) {
      receiverOf(account).hangNext(1);
    },
    unanswered: (account) => receiverOf(account).attempts.filter((a) => a.answeredWith === 0).length,
  },
};

import { startXApi, type XApiPeer } from "../../peers/x-api";
import type { ProviderDriver, SuiteContext } from "../driver";
import { configureOAuth, connectOAuth, expireAtHerald } from "./oauth-connect";

/**
 * X against the test double written from the X API v2 reference (test/peers/x-api.ts: X cannot run here),
 * which also serves X's OAuth 2.0 endpoints (test/peers/oauth-server.ts at X's paths) so the connection goes
 * through start → authorize → Herald's callback. Its faults are X's own answers: an expired or revoked token's
 * 401, a 429 with x-rate-limit-reset (epoch seconds), a post stored whose answer never comes.
 */

const CLIENT = { clientId: "herald-x-conformance", clientSecret: "x-client-secret-conformance" };
let x: XApiPeer;
let suite: SuiteContext;

export const xDriver: ProviderDriver = {
  platform: "x",
  label: "x (documented test double)",
  textLimit: 280,
  threads: { kind: "replies" },
  images: { supported: true },
  // X has no idempotency key; Herald reads the account's recent posts (GET /2/users/:id/tweets) to find it.
  timeoutOutcome: "reconciled",
  tokenRefresh: {
    supported: true,
    async expireAccessToken(_ws, account) {
      x.expireTokensOf(account.platformRef);
      await expireAtHerald(account.id);
    },
    refreshCount: () => x.oauth!.authority.refreshCount,
  },

  async start(s) {
    suite = s;
    x = await startXApi({ oauth: CLIENT });
    configureOAuth(suite, "x", x.url, CLIENT);
  },
  async stop() {
    await x?.stop();
  },

  async connect(ws) {
    const user = x.addAccount();
    x.connectNext(user.id);
    const id = await connectOAuth(suite, ws, "x");
    return { id, platformRef: user.id, secrets: [CLIENT.clientSecret, ...x.tokensOf(user.id)] };
  },

  async posts(account) {
    return x.postsOf(account.platformRef).map((p) => ({
      id: p.id,
      text: p.posted,
      replyTo: p.inReplyTo,
      media: p.mediaIds.map((id) => ({ bytes: x.media.get(id)!.bytes, altText: x.media.get(id)!.alt })),
    }));
  },

  faults: {
    async unauthorized(account) {
      x.expireTokensOf(account.platformRef);
    },
    async rateLimitNext(_account, resetAt) {
      x.rateLimitNext(1, resetAt);
    },
    async hangAfterAcceptingNext() {
      x.hangNext(1);
    },
    unanswered: (account) => x.hung.filter((id) => id === account.platformRef).length,
  },
};

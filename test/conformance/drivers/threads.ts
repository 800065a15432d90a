import { startThreadsApi, type ThreadsApiPeer } from "../../peers/threads-api";
import type { ProviderDriver, SuiteContext } from "../driver";
import { configureOAuth, connectOAuth, expireAtHerald } from "./oauth-connect";

/**
 * Threads against the test double written from Meta's Threads API reference (test/peers/threads-api.ts: Threads
 * cannot run here), which also serves Threads' token endpoints (test/peers/oauth-server.ts at Threads' paths:
 * the code, the long-lived exchange, th_refresh_token). Threads fetches images from Herald's signed media URLs,
 * so the double fetches them from the suite's Herald over HTTP. Faults: Graph's code 190 for a dead token, a
 * rate limit (429, Graph code 4) with the usage header's estimated_time_to_regain_access and a Retry-After, a
 * publish done whose answer never comes.
 */

const CLIENT = { clientId: "herald-threads-conformance", clientSecret: "threads-client-secret-conformance" };
let api: ThreadsApiPeer;
let suite: SuiteContext;

export const threadsDriver: ProviderDriver = {
  platform: "threads",
  label: "threads (documented test double)",
  textLimit: 500,
  threads: { kind: "replies" },
  images: { supported: true },
  // No idempotency key; Herald reads the account's recent posts and replies to find it.
  timeoutOutcome: "reconciled",
  tokenRefresh: {
    supported: true,
    async expireAccessToken(_ws, account) {
      api.expireTokensOf(account.platformRef);
      await expireAtHerald(account.id);
    },
    refreshCount: () => api.oauth!.authority.refreshCount,
  },

  async start(s) {
    suite = s;
    api = await startThreadsApi({ oauth: CLIENT });
    configureOAuth(suite, "threads", api.url, CLIENT);
  },
  async stop() {
    await api?.stop();
  },

  async connect(ws) {
    const user = api.addAccount();
    api.connectNext(user.id);
    const id = await connectOAuth(suite, ws, "threads");
    return { id, platformRef: user.id, secrets: [CLIENT.clientSecret, ...api.tokensOf(user.id)] };
  },

  async posts(account) {
    return api.postsOf(account.platformRef).map((p) => ({
      id: p.id,
      text: p.text ?? "",
      replyTo: p.replyTo,
      media: p.images.map((i) => ({ bytes: i.bytes, altText: i.alt })),
    }));
  },

  faults: {
    async unauthorized(account) {
      api.expireTokensOf(account.platformRef);
    },
    async rateLimitNext(_account, resetAt) {
      api.rateLimitNext(1, resetAt);
    },
    async hangAfterAcceptingNext() {
      api.hangNext(1);
    },
    unanswered: (account) => api.hung.filter((id) => id === account.platformRef).length,
  },
};

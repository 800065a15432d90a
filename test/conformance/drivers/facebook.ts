import { type MetaGraphApiPeer, startMetaGraphApi } from "../../peers/meta-graph-api";
import type { ProviderDriver, SuiteContext } from "../driver";
import { configureOAuth, connectOAuth } from "./oauth-connect";

/**
 * Facebook Pages against the test double written from Meta's Graph API reference (test/peers/meta-graph-api.ts:
 * Facebook cannot run here), which also serves Facebook Login's endpoints (the code, then fb_exchange_token for a
 * long-lived user token). A connection is the user's first Page, kept with its Page token. Facebook fetches
 * photos from Herald's signed media URLs, so the double fetches them from the suite's Herald over HTTP. Faults:
 * Graph's code 190 for a dead token, a rate limit (429, Graph code 4) with the usage header's
 * estimated_time_to_regain_access and a Retry-After, a post made whose answer never comes.
 */

const CLIENT = { clientId: "herald-facebook-conformance", clientSecret: "facebook-client-secret-conformance" };
let api: MetaGraphApiPeer;
let suite: SuiteContext;
const owners = new Map<string, string>();

export const facebookDriver: ProviderDriver = {
  platform: "facebook",
  label: "facebook (documented test double)",
  textLimit: 63_206,
  threads: { kind: "one_post", documented: "Page posts have no reply chains: the segments are joined into one post, a blank line between them" },
  images: { supported: true },
  // No idempotency key; Herald reads the Page's published posts to find it.
  timeoutOutcome: "reconciled",
  tokenRefresh: { supported: false, reason: "Page tokens read with a long-lived user token never expire: nothing to refresh" },

  async start(s) {
    suite = s;
    api = await startMetaGraphApi({ oauth: CLIENT });
    configureOAuth(suite, "facebook", api.url, CLIENT);
  },
  async stop() {
    await api?.stop();
  },

  async connect(ws) {
    const { user, page } = api.addUser();
    owners.set(page.id, user.id);
    api.connectNext(user);
    const id = await connectOAuth(suite, ws, "facebook");
    return { id, platformRef: page.id, secrets: [CLIENT.clientSecret, ...api.tokensOf(user.id)] };
  },

  async posts(account) {
    return api.postsOf(account.platformRef).map((p) => ({
      id: p.id,
      text: p.text,
      replyTo: null,
      media: p.images.map((i) => ({ bytes: i.bytes, altText: i.alt })),
    }));
  },

  faults: {
    async unauthorized(account) {
      api.expireTokensOf(owners.get(account.platformRef)!);
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

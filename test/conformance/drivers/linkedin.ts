import { startLinkedInApi, type LinkedInApiPeer } from "../../peers/linkedin-api";
import type { ProviderDriver, SuiteContext } from "../driver";
import { configureOAuth, connectOAuth, expireAtHerald } from "./oauth-connect";

/**
 * LinkedIn against the test double written from LinkedIn's Posts, Images and userinfo API reference
 * (test/peers/linkedin-api.ts: LinkedIn cannot run here), which also serves LinkedIn's OAuth 2.0 endpoints
 * (test/peers/oauth-server.ts at LinkedIn's paths). The member is one whose app has r_member_social (the double's
 * default), so reconciliation can read the member's posts; without it the timeout case would end
 * verify_on_platform (tested in test/providers-linkedin.test.ts).
 */

const CLIENT = { clientId: "herald-linkedin-conformance", clientSecret: "linkedin-client-secret-conformance" };
let api: LinkedInApiPeer;
let suite: SuiteContext;

export const linkedinDriver: ProviderDriver = {
  platform: "linkedin",
  label: "linkedin (documented test double)",
  textLimit: 3000,
  threads: { kind: "one_post", documented: "no replies in the Posts API: the segments are joined into one post, refused at creation over 3,000 characters" },
  images: { supported: true },
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
    api = await startLinkedInApi({ oauth: CLIENT });
    configureOAuth(suite, "linkedin", api.url, CLIENT);
  },
  async stop() {
    await api?.stop();
  },

  async connect(ws) {
    const member = api.addAccount();
    api.connectNext(member.id);
    const id = await connectOAuth(suite, ws, "linkedin");
    return { id, platformRef: member.id, secrets: [CLIENT.clientSecret, ...api.tokensOf(member.id)] };
  },

  async posts(account) {
    return api.postsOf(account.platformRef).map((p) => ({
      id: p.urn,
      text: p.text,
      replyTo: null,
      media: p.images.map((i) => ({ bytes: i.bytes, altText: i.altText })),
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

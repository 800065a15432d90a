import { startTikTokApi, type TikTokApiPeer, type TikTokUser } from "../../peers/tiktok-api";
import type { ProviderDriver, SuiteContext } from "../driver";
import { configureOAuth, connectOAuth, expireAtHerald } from "./oauth-connect";

/**
 * TikTok against the test double written from TikTok's Content Posting API and Login Kit references
 * (test/peers/tiktok-api.ts: TikTok cannot run here), which also serves Login Kit's endpoints (authorization
 * code with PKCE, `client_key`, 24-hour access tokens and refresh tokens), so the connection goes through
 * start → authorize → Herald's callback. A post is one video (the text cases attach an MP4 the test makes),
 * uploaded in chunks after creator_info, then polled until TikTok says PUBLISH_COMPLETE. Its faults are
 * TikTok's own answers: `access_token_invalid` (401) for a revoked token, `rate_limit_exceeded` (429, no reset
 * header) on the post's init, and the upload's last chunk stored (the post complete) whose answer never comes.
 */

const CLIENT = { clientId: "herald-tiktok-conformance", clientSecret: "tiktok-client-secret-conformance" };
let api: TikTokApiPeer;
let suite: SuiteContext;
const users = new Map<string, TikTokUser>();

export const tiktokDriver: ProviderDriver = {
  platform: "tiktok",
  label: "tiktok (documented test double)",
  textLimit: 2_200,
  threads: { kind: "one_post", documented: "TikTok has no threads: the segments are joined into one caption, a blank line between them" },
  images: {
    supported: false,
    reason: "a TikTok post here is one video; TikTok's photo posts take images only by PULL_FROM_URL from a domain verified with TikTok",
  },
  requiresMedia: { kind: "video", reason: "TikTok's Content Posting API posts a video (or photos); there are no text-only posts" },
  rateLimitWindow: { seconds: 60, documented: "TikTok counts limits over a one-minute sliding window and sends no reset time" },
  // The publish_id is saved before the first chunk; the next attempt asks TikTok's status fetch how many bytes
  // it holds (uploaded_bytes), sends nothing it has and polls the same publish to its end.
  timeoutOutcome: "reconciled",
  tokenRefresh: {
    supported: true,
    async expireAccessToken(_ws, account) {
      api.expireTokensOf(users.get(account.platformRef)!);
      await expireAtHerald(account.id);
    },
    refreshCount: () => api.oauth!.authority.refreshCount,
  },

  async start(s) {
    suite = s;
    api = await startTikTokApi({ oauth: CLIENT, processingPolls: 1 });
    configureOAuth(suite, "tiktok", api.url, CLIENT);
  },
  async stop() {
    await api?.stop();
  },

  async connect(ws) {
    const user = api.addAccount();
    users.set(user.openId, user);
    api.connectNext(user);
    const id = await connectOAuth(suite, ws, "tiktok");
    return { id, platformRef: user.openId, secrets: [CLIENT.clientSecret, ...api.tokensOf(user)] };
  },

  async posts(account) {
    return api.postsOf(users.get(account.platformRef)!).map((p) => ({
      // SELF_ONLY posts have no public id: Herald records the publish_id.
      id: p.videoId ?? p.id,
      text: p.caption,
      replyTo: null,
      media: [{ bytes: p.sink.bytes() ?? new Uint8Array(), altText: null }],
    }));
  },

  faults: {
    async unauthorized(account) {
      api.expireTokensOf(users.get(account.platformRef)!);
    },
    async rateLimitNext() {
      // TikTok's 429 says no reset time (rateLimitWindow above), so the case's resetAt cannot be conveyed.
      api.rateLimitNext(1);
    },
    async hangAfterAcceptingNext() {
      api.hangNext(1);
    },
    unanswered: (account) => api.hung.filter((id) => id === account.platformRef).length,
  },
};

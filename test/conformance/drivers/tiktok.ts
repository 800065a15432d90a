import { startTikTokApi, type TikTokUser } from "../../peers/tiktok-api";
import { oauthStandInDriver } from "./oauth-stand-in";

/**
 * TikTok against the test double written from TikTok's Content Posting API and Login Kit references
 * (test/peers/tiktok-api.ts: TikTok cannot run here), which also serves Login Kit's endpoints (authorization
 * code with PKCE, `client_key`, 24-hour access tokens and refresh tokens), so the connection goes through
 * start → authorize → Herald's callback. A post is one video (the text cases attach an MP4 the test makes),
 * uploaded in chunks after creator_info, then polled until TikTok says PUBLISH_COMPLETE. Its faults are
 * TikTok's own answers: `access_token_invalid` (401) for a revoked token, `rate_limit_exceeded` (429, no reset
 * header) on the post's init, and the upload's last chunk stored (the post complete) whose answer never comes.
 */
export const tiktokDriver = oauthStandInDriver({
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
  async start(oauth) {
    const api = await startTikTokApi({ oauth, processingPolls: 1 });
    const users = new Map<string, TikTokUser>();
    const user = (openId: string) => users.get(openId)!;
    return {
      url: api.url,
      stop: api.stop,
      oauth: api.oauth,
      hung: api.hung,
      addAccount() {
        const u = api.addAccount();
        users.set(u.openId, u);
        return { id: u.openId };
      },
      connectNext: (id) => api.connectNext(user(id)),
      tokensOf: (id) => api.tokensOf(user(id)),
      expireTokensOf: (id) => api.expireTokensOf(user(id)),
      // TikTok's 429 says no reset time (rateLimitWindow above), so the case's resetAt cannot be conveyed.
      rateLimitNext: (n) => api.rateLimitNext(n),
      hangNext: (n) => api.hangNext(n),
      postsOf: (id) => api.postsOf(user(id)),
    };
  },
  post: (p) => ({
    // SELF_ONLY posts have no public id: Herald records the publish_id.
    id: p.videoId ?? p.id,
    text: p.caption,
    replyTo: null,
    media: [{ bytes: p.sink.bytes() ?? new Uint8Array(), altText: null }],
  }),
});

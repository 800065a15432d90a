import { type Channel, startYouTubeApi } from "../../peers/youtube-api";
import { oauthStandInDriver } from "./oauth-stand-in";

/**
 * YouTube against the test double written from the YouTube Data API v3 and Google OAuth 2.0 references
 * (test/peers/youtube-api.ts: YouTube cannot run here), which also serves Google's OAuth endpoints (authorization
 * code with PKCE, access tokens that last an hour, refresh tokens), so the connection goes through start →
 * authorize → Herald's callback. A post is one video (the text cases attach an MP4 the test makes), uploaded in a
 * resumable session, then polled until YouTube has processed it; the rendition's text is the description. Its
 * faults are Google's own answers: 401 `authError` (UNAUTHENTICATED) for a revoked token; 429 `rateLimitExceeded`
 * with Retry-After on the upload session's start (YouTube's daily quota, 403 `quotaExceeded`, resets at midnight
 * Pacific time and cannot be made to reset at the case's time); the last chunk stored, the video made, and its
 * answer never coming.
 */
export const youtubeDriver = oauthStandInDriver({
  platform: "youtube",
  label: "youtube (documented test double)",
  clientId: "herald-youtube-conformance.apps.googleusercontent.com",
  // The description (the title, 100 characters, comes from the rendition's title or first line).
  textLimit: 5_000,
  threads: { kind: "one_post", documented: "YouTube has no threads: the segments are joined into one description, a blank line between them" },
  images: { supported: false, reason: "a YouTube post is one video; the Data API uploads no images (thumbnails aside)" },
  requiresMedia: { kind: "video", reason: "videos.insert uploads a video; YouTube has no text-only posts" },
  // The upload session is saved before the first chunk; the next attempt asks the session where it stands
  // (`Content-Range: bytes */total`), which answers the finished video, and polls that video: nothing is re-sent.
  timeoutOutcome: "reconciled",
  async start(oauth) {
    const api = await startYouTubeApi({ oauth, processingPolls: 1 });
    const channels = new Map<string, Channel>();
    const channel = (id: string) => channels.get(id)!;
    return {
      url: api.url,
      stop: api.stop,
      oauth: api.oauth,
      hung: api.hung,
      addAccount() {
        const c = api.addAccount();
        channels.set(c.id, c);
        return { id: c.id };
      },
      connectNext: (id) => api.connectNext(channel(id)),
      tokensOf: (id) => api.tokensOf(channel(id)),
      expireTokensOf: (id) => api.expireTokensOf(channel(id)),
      rateLimitNext: (_n, resetAt) => api.rateLimitNext(resetAt),
      hangNext: () => api.hangNext(),
      postsOf: (id) => api.videosOf(channel(id)),
    };
  },
  post: (v) => ({ id: v.id, text: v.description, replyTo: null, media: [{ bytes: v.sink.bytes() ?? new Uint8Array(), altText: null }] }),
});

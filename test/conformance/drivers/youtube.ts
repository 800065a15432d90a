import { type Channel, startYouTubeApi, type YouTubeApiPeer } from "../../peers/youtube-api";
import type { ProviderDriver, SuiteContext } from "../driver";
import { configureOAuth, connectOAuth, expireAtHerald } from "./oauth-connect";

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

const CLIENT = { clientId: "herald-youtube-conformance.apps.googleusercontent.com", clientSecret: "youtube-client-secret-conformance" };
let api: YouTubeApiPeer;
let suite: SuiteContext;
const channels = new Map<string, Channel>();

export const youtubeDriver: ProviderDriver = {
  platform: "youtube",
  label: "youtube (documented test double)",
  // The description (the title, 100 characters, comes from the rendition's title or first line).
  textLimit: 5_000,
  threads: { kind: "one_post", documented: "YouTube has no threads: the segments are joined into one description, a blank line between them" },
  images: { supported: false, reason: "a YouTube post is one video; the Data API uploads no images (thumbnails aside)" },
  requiresMedia: { kind: "video", reason: "videos.insert uploads a video; YouTube has no text-only posts" },
  // The upload session is saved before the first chunk; the next attempt asks the session where it stands
  // (`Content-Range: bytes */total`), which answers the finished video, and polls that video: nothing is re-sent.
  timeoutOutcome: "reconciled",
  tokenRefresh: {
    supported: true,
    async expireAccessToken(_ws, account) {
      api.expireTokensOf(channels.get(account.platformRef)!);
      await expireAtHerald(account.id);
    },
    refreshCount: () => api.oauth!.authority.refreshCount,
  },

  async start(s) {
    suite = s;
    api = await startYouTubeApi({ oauth: CLIENT, processingPolls: 1 });
    configureOAuth(suite, "youtube", api.url, CLIENT);
  },
  async stop() {
    await api?.stop();
  },

  async connect(ws) {
    const channel = api.addAccount();
    channels.set(channel.id, channel);
    api.connectNext(channel);
    const id = await connectOAuth(suite, ws, "youtube");
    return { id, platformRef: channel.id, secrets: [CLIENT.clientSecret, ...api.tokensOf(channel)] };
  },

  async posts(account) {
    return api.videosOf(channels.get(account.platformRef)!).map((v) => ({
      id: v.id,
      text: v.description,
      replyTo: null,
      media: [{ bytes: v.sink.bytes() ?? new Uint8Array(), altText: null }],
    }));
  },

  faults: {
    async unauthorized(account) {
      api.expireTokensOf(channels.get(account.platformRef)!);
    },
    async rateLimitNext(_account, resetAt) {
      api.rateLimitNext(resetAt);
    },
    async hangAfterAcceptingNext() {
      api.hangNext();
    },
    unanswered: (account) => api.hung.filter((id) => id === account.platformRef).length,
  },
};

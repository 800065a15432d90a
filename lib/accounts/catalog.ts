import type { Platform } from "../../db/schema/accounts";
import { DEFAULT_PDS } from "../platforms/bluesky/xrpc";
import { PLATFORM_LIMITS, type PlatformLimits } from "../providers/platform-limits";

/**
 * What Herald can do with each provider, stated honestly (SPEC.md 2.8 Provider and Readiness). Pure data:
 * GET /accounts/providers presents it, AccountResponse draws its capability flags from it.
 */

export interface ProviderFacts {
  approval: string;
  authorization: string;
  configuration: string;
  control: string;
  live_certification: string;
  local_test: string;
  policy: string;
}

export interface ProviderSpec {
  platform: Platform;
  display_name: string;
  description: string;
  auth_mode: string;
  connection_modes: string[];
  instance_url: string | null;
  capabilities: string[];
  messaging_supported: boolean;
  thread_replies_supported: boolean;
  analytics_ready: boolean;
  /** Connected through OAuth 2.0 with the operator's registered app (`<platform>_client_id` / `_client_secret`). */
  oauth: boolean;
  limits: PlatformLimits;
  facts: ProviderFacts;
  blockers: { code: string; detail: string }[];
}

const NO_ANALYTICS = {
  code: "analytics_not_collected",
  detail: "A webhook endpoint has no posts or metrics to read; import measurements with POST /analytics/measurements.",
};

interface OAuthProviderInput {
  display_name: string;
  description: string;
  capabilities: string[];
  thread_replies_supported: boolean;
  analytics_ready: boolean;
  facts: ProviderFacts;
  extraBlockers?: { code: string; detail: string }[];
}

/** A platform connected through OAuth 2.0 (POST /accounts/connect/{platform}/start). */
function oauthProvider(platform: Platform, input: OAuthProviderInput): ProviderSpec {
  return {
    platform,
    display_name: input.display_name,
    description: input.description,
    auth_mode: "oauth2",
    connection_modes: ["oauth2"],
    instance_url: null,
    capabilities: input.capabilities,
    messaging_supported: false,
    thread_replies_supported: input.thread_replies_supported,
    analytics_ready: input.analytics_ready,
    oauth: true,
    limits: PLATFORM_LIMITS[platform],
    facts: input.facts,
    blockers: [{ code: "messages_not_collected", detail: "Herald does not collect mentions or replies from this platform." }, ...(input.extraBlockers ?? [])],
  };
}

function metaFacts(platform: "facebook" | "instagram", permissions: string, policy: string): ProviderFacts {
  return {
    approval: "The operator creates a Meta app and passes App Review for the permissions below before other people can connect.",
    authorization: `Facebook Login (Graph API v21.0 dialog/oauth), authorization code, then fb_exchange_token for a 60-day user token; permissions ${permissions}.`,
    configuration: `${platform}_client_id and ${platform}_client_secret instance settings (the same Meta app's id and secret for facebook and instagram); redirect URI <PUBLIC_BASE_URL>/accounts/connect/${platform}/callback. Meta fetches images from Herald's signed media URLs, so PUBLIC_BASE_URL must be reachable from the internet.`,
    control: "The user can remove the app in Facebook settings; Herald then marks the account reconnect_required.",
    live_certification: "Not certified against graph.facebook.com from this deployment.",
    local_test:
      "Tested against a local stand-in written from Meta's Graph API reference (test/peers/meta-graph-api.ts), through the provider conformance suite.",
    policy,
  };
}

export const PROVIDERS: Record<Platform, ProviderSpec> = {
  webhook: {
    platform: "webhook",
    display_name: "Webhook",
    description: "Delivers each rendition as one signed JSON POST (Standard Webhooks) to a URL you choose.",
    auth_mode: "signing_secret",
    connection_modes: ["url"],
    instance_url: null,
    capabilities: ["publish", "segments", "media_urls", "signed_delivery", "retry_dedup_by_webhook_id"],
    messaging_supported: false,
    thread_replies_supported: false,
    analytics_ready: false,
    oauth: false,
    limits: PLATFORM_LIMITS.webhook,
    facts: {
      approval: "None needed: you own the receiving endpoint.",
      authorization: "Optional shared secret; deliveries are signed with HMAC-SHA256 (whsec_ secrets keyed by their decoded bytes).",
      configuration: "None by the operator; each account names its URL (https, public addresses unless the instance allows private URLs).",
      control: "Delete the account to stop deliveries; rotate the secret by reconnecting.",
      live_certification: "Not applicable: any receiver that verifies Standard Webhooks signatures works.",
      local_test: "Tested against a local receiver that verifies signatures independently and fails on purpose (500, 400, 429, hang).",
      policy: "Retries reuse the webhook-id so receivers can drop duplicates; 408, 429, 5xx and network errors are retried, other 4xx are not.",
    },
    blockers: [NO_ANALYTICS, { code: "messages_not_applicable", detail: "A webhook endpoint has no mentions or replies to collect." }],
  },
  bluesky: {
    platform: "bluesky",
    display_name: "Bluesky",
    description: "Posts to Bluesky or any AT Protocol PDS; threads become reply chains; 300 graphemes per post.",
    auth_mode: "app_password",
    connection_modes: ["app_password"],
    instance_url: DEFAULT_PDS,
    capabilities: ["publish", "threads", "link_facets", "images", "messages", "idempotent_record_keys", "analytics"],
    messaging_supported: true,
    thread_replies_supported: true,
    // POST /analytics/refresh and the scheduler collect posts from the PDS and counts from the AppView it proxies to.
    analytics_ready: true,
    oauth: false,
    limits: PLATFORM_LIMITS.bluesky,
    facts: {
      approval: "None needed: any account holder can connect.",
      authorization:
        "An app password the account owner creates in Bluesky settings (Privacy and security → App passwords), with the handle or email as identifier.",
      configuration: "None by the operator. instance_url defaults to https://bsky.social; give a PDS URL for accounts elsewhere.",
      control: "The account owner can revoke the app password at any time; Herald then reports an authentication error.",
      live_certification: "Not certified against bsky.social from this deployment.",
      local_test:
        "Publishing, record-key idempotency, profile reads and analytics collection are tested against a real PDS (@atproto/pds 0.4.217) on loopback. Message collection and like, repost, reply and follower counts need an AppView, which the local tests do not run: counts are tested against a stand-in written from the lexicons, and without an AppView they are reported unavailable, never zero.",
      policy: "Each post's record key derives from the rendition and segment, so a retry finds the existing post instead of posting twice.",
    },
    blockers: [],
  },
  mastodon: {
    platform: "mastodon",
    display_name: "Mastodon (and Mastodon-API servers)",
    description: "Posts to any server with the Mastodon API; threads through replies; 500 characters unless the server announces its own limit.",
    auth_mode: "access_token",
    connection_modes: ["access_token"],
    instance_url: null,
    capabilities: ["publish", "threads", "media", "messages", "idempotency_key", "analytics"],
    messaging_supported: true,
    thread_replies_supported: true,
    // Followers and each status's favourites, reblogs and replies through the Mastodon API (needs the read scope).
    analytics_ready: true,
    oauth: false,
    limits: PLATFORM_LIMITS.mastodon,
    facts: {
      approval: "None needed: any account holder can connect.",
      authorization: "An access token with read and write scopes (Preferences → Development → New application on Mastodon), plus the server's URL.",
      configuration: "None by the operator.",
      control: "The account owner can revoke the token at any time; Herald then reports an authentication error.",
      live_certification: "Not certified against a live Mastodon server from this deployment.",
      local_test: "Tested against a local server written from the Mastodon API documentation (no Mastodon server can run in the test environment).",
      policy:
        "Every status carries an Idempotency-Key derived from the rendition and segment; Mastodon honours it for about an hour, after which reconciliation reads the account's recent statuses.",
    },
    blockers: [],
  },
  x: oauthProvider("x", {
    display_name: "X (Twitter)",
    description:
      "Posts through the X API v2 (POST /2/tweets); threads become reply chains; 280 weighted characters per post; up to 4 images with alt text; retweets for repost automation; followers and each post's likes, retweets, replies and impressions collected.",
    capabilities: ["publish", "threads", "images", "reposts", "analytics"],
    thread_replies_supported: true,
    // Followers and each post's public_metrics (likes, retweets, replies, impressions) through lib/platforms/x/analytics.ts.
    analytics_ready: true,
    facts: {
      approval: "The operator registers an app in the X developer portal (a paid API tier is needed to post at volume).",
      authorization: "OAuth 2.0 authorization code with PKCE; scopes tweet.read tweet.write users.read offline.access media.write.",
      configuration: "x_client_id and x_client_secret instance settings; the app's callback URL is <PUBLIC_BASE_URL>/accounts/connect/x/callback.",
      control: "The account owner can revoke the app in X settings; Herald then marks the account reconnect_required.",
      live_certification: "Not certified against api.x.com from this deployment.",
      local_test: "Tested against a local stand-in written from the X API v2 reference (x_api_base / x_auth_base point at it).",
      policy:
        "X has no idempotency key: after an unknown outcome Herald reads the account's newest 100 posts (GET /2/users/:id/tweets) and takes the segments found there by text and reply chain, and a post X refuses as a duplicate is looked up the same way, so a retry never posts twice. Access tokens last two hours and are refreshed before they expire; a refused refresh asks for a reconnection.",
    },
    extraBlockers: [
      { code: "video_not_supported", detail: "Herald uploads still images only; video and GIF need X's chunked upload, which Herald does not do." },
    ],
  }),
  linkedin: oauthProvider("linkedin", {
    display_name: "LinkedIn",
    description:
      "Posts to a member's feed through the LinkedIn Posts API; 3,000 characters; no threads: a rendition's segments are joined into one post (a blank line between them) when the whole fits 3,000 characters, and a longer one is refused with a 422 when the publication is created; one image or up to 20 with alt text; reshares for repost automation (a reshare is undone by deleting it).",
    capabilities: ["publish", "images", "segments_joined", "reposts"],
    thread_replies_supported: false,
    analytics_ready: false,
    facts: {
      approval: "The operator creates an app in the LinkedIn developer portal with the Share on LinkedIn and Sign In with LinkedIn (OpenID Connect) products.",
      authorization: "OAuth 2.0 authorization code (no PKCE for web apps); scopes openid profile w_member_social.",
      configuration:
        "linkedin_client_id and linkedin_client_secret instance settings; the app's redirect URL is <PUBLIC_BASE_URL>/accounts/connect/linkedin/callback.",
      control: "The member can remove the app in LinkedIn settings; Herald then marks the account reconnect_required.",
      live_certification: "Not certified against api.linkedin.com from this deployment.",
      local_test: "Tested against a local stand-in written from LinkedIn's Posts, Images and userinfo API reference.",
      policy:
        "LinkedIn has no idempotency key. After an unknown outcome Herald reads the member's recent posts (GET /rest/posts?q=author) to find the post; that read needs r_member_social, which LinkedIn grants only to approved apps, so without it the rendition ends failed with recovery_action verify_on_platform instead of risking a second post. A reshare for repost automation is looked for the same way before and after asking; without that read, a reshare whose answer was lost ends its repost attempt failed (reshare_outcome_unknown) rather than resharing twice. Member tokens last 60 days; refresh tokens are issued only to apps LinkedIn approves for them, otherwise the member reconnects.",
    },
    extraBlockers: [
      { code: "analytics_not_available", detail: "Member post statistics need LinkedIn's Community Management API approval, which this app does not assume." },
      { code: "video_not_supported", detail: "Herald sends images only to LinkedIn; video needs LinkedIn's multi-part video upload." },
    ],
  }),
  threads: oauthProvider("threads", {
    display_name: "Threads",
    description:
      "Posts through the Threads API (a container, then publish); threads become replies (reply_to_id); 500 characters per post (an emoji counts as its UTF-8 bytes); one image, or a carousel of up to 20, with alt text; reposts for repost automation; followers and each post's views, likes, replies and reposts collected (threads_manage_insights).",
    capabilities: ["publish", "threads", "images", "reposts", "analytics"],
    thread_replies_supported: true,
    // Followers and each post's views, likes, replies and reposts through lib/platforms/threads/analytics.ts.
    analytics_ready: true,
    facts: {
      approval: "The operator creates a Meta app with the Threads use case (threads_basic, threads_content_publish).",
      authorization: "OAuth 2.0 authorization code; the short-lived token is exchanged for a 60-day one and refreshed with th_refresh_token.",
      configuration:
        "threads_client_id and threads_client_secret instance settings; the app's redirect URI is <PUBLIC_BASE_URL>/accounts/connect/threads/callback. Threads fetches images from Herald's signed media URLs, so PUBLIC_BASE_URL must be reachable from the internet.",
      control: "The account owner can remove the app in Threads settings; Herald then marks the account reconnect_required.",
      live_certification: "Not certified against graph.threads.net from this deployment.",
      local_test: "Tested against a local stand-in written from the Threads API reference.",
      policy:
        "Threads has no idempotency key: after an unknown outcome Herald reads the account's newest 50 posts and 50 replies and takes the segments found there by text and reply chain, so a retry never posts twice. Long-lived tokens are refreshed before they expire; a refused refresh asks for a reconnection.",
    },
    extraBlockers: [
      {
        code: "unrepost_not_available",
        detail:
          "Repost automation reposts on Threads (POST /{media-id}/repost, found again among the account's posts so a retry never reposts twice), but Threads undoes a repost only by deleting it (threads_delete, not requested): a stage with unrepost_previous fails on a Threads account.",
      },
      { code: "video_not_supported", detail: "Herald sends images only to Threads." },
    ],
  }),
  facebook: oauthProvider("facebook", {
    display_name: "Facebook Pages",
    description:
      "Posts to a Facebook Page through the Graph API: a connection is the first Page the user manages (GET /me/accounts), kept with its Page token; text and links (POST /{page-id}/feed), one photo (POST /{page-id}/photos) or up to 10 (unpublished photos attached to one feed post), with alt text; no threads: a rendition's segments are joined into one post (a blank line between them). Analytics: the Page's followers and each post's reactions, comments and shares (GET /{page-id}/posts with summary counts; a count Graph leaves out is unavailable, never zero).",
    capabilities: ["publish", "images", "segments_joined", "analytics"],
    thread_replies_supported: false,
    analytics_ready: true,
    facts: metaFacts(
      "facebook",
      "pages_show_list, pages_manage_posts, pages_read_engagement",
      "Facebook has no idempotency key: after an unknown outcome Herald reads the Page's newest 50 published posts (GET /{page-id}/published_posts) and takes the one whose message is the rendition's text, so a retry never posts twice. The Page token read with a long-lived user token does not expire, so nothing is refreshed; a revoked one asks for a reconnection.",
    ),
    extraBlockers: [
      { code: "reposts_not_available", detail: "The Graph API cannot share a Page's post again as a repost." },
      { code: "video_not_supported", detail: "Herald sends images only to Facebook; Page videos need the resumable video upload." },
      { code: "page_choice", detail: "A connection is the first Page /me/accounts lists; to post to another Page, grant only that Page when connecting." },
    ],
  }),
  instagram: oauthProvider("instagram", {
    display_name: "Instagram",
    description:
      "Posts to an Instagram professional account through the Instagram API with Facebook Login: a connection is the Instagram account of the first Page the user manages that is linked to one, kept with the Page's token; a media container (POST /{ig-user-id}/media) then media_publish; one image or a carousel of up to 10, with alt text, or one video alone as a Reel (media_type REELS with video_url; Instagram's processing polled through status_code until FINISHED, the container kept across retries); an image or a video is required (a publication without one, or mixing a video with anything, is refused with a 422 at creation); captions of 2,200 characters with at most 30 hashtags; no threads: a rendition's segments are joined into one caption. Analytics: followers, each media's likes and comments, and its views and reach from media insights (GET /{ig-media-id}/insights; what Instagram withholds, as for media too few people saw, is unavailable, never zero).",
    capabilities: ["publish", "images", "video", "segments_joined", "analytics"],
    thread_replies_supported: false,
    analytics_ready: true,
    facts: metaFacts(
      "instagram",
      "instagram_basic, instagram_content_publish, instagram_manage_insights, pages_show_list, pages_read_engagement",
      "Instagram has no idempotency key: a container is not a post, and after an unknown outcome of media_publish Herald reads the account's newest 50 media (GET /{ig-user-id}/media) and takes the one whose caption is the rendition's text, so a retry never posts twice. The Page token does not expire, so nothing is refreshed; a revoked one asks for a reconnection.",
    ),
    extraBlockers: [
      { code: "reposts_not_available", detail: "The Instagram API has no repost." },
      {
        code: "media_required",
        detail: "An Instagram post needs an image or a video: a publication with an Instagram destination and no media is refused at creation.",
      },
    ],
  }),
  tiktok: oauthProvider("tiktok", {
    display_name: "TikTok",
    description:
      "Posts one video per rendition through the TikTok Content Posting API (direct post, FILE_UPLOAD in 10 MiB chunks, resumed after a crash from the last confirmed chunk), then polls the post's status until TikTok publishes it or says why not; the rendition's text is the caption (2,200 characters); posted SELF_ONLY (private). A publication without a video is refused at creation.",
    capabilities: ["publish", "video", "analytics"],
    thread_replies_supported: false,
    analytics_ready: true,
    facts: {
      approval:
        "The operator registers an app on TikTok for Developers with Login Kit, the Content Posting API and the Display API; unaudited apps post privately only.",
      authorization:
        "OAuth 2.0 authorization code with PKCE; client_key instead of client_id; scopes user.info.basic, video.publish, video.list and user.info.stats (analytics).",
      configuration:
        "tiktok_client_id (the client key) and tiktok_client_secret instance settings; redirect URI <PUBLIC_BASE_URL>/accounts/connect/tiktok/callback.",
      control: "The user can revoke the app in TikTok settings.",
      live_certification: "Not certified against open.tiktokapis.com from this deployment.",
      local_test:
        "Tested against a local stand-in written from TikTok's Content Posting API, Login Kit and Display API references (test/peers/tiktok-api.ts), including a 200 MB upload resumed after a kill, and by the conformance suite.",
      policy:
        "Access tokens last 24 hours and are refreshed with the refresh token (365 days). FILE_UPLOAD rather than PULL_FROM_URL: TikTok pulls only from URL prefixes the app owner verified, which a self-hosted PUBLIC_BASE_URL usually is not. The publish_id is kept from the first chunk on, so a retry continues the same post and never starts a second one; while TikTok processes, the delivery polls on its retry schedule (8 attempts), then ends failed with verify_on_platform. Before each post, creator_info: a creator who cannot post SELF_ONLY, or a video longer than they may post, fails at once saying why; comments, duets and stitches follow their settings. Analytics: followers and each public video's views, likes, comments and shares (video.list, 20 a page); private (SELF_ONLY) posts are not listed, so Herald's own posts have no statistics until made public.",
    },
    extraBlockers: [
      {
        code: "privacy_private_only",
        detail: "Posts go out SELF_ONLY (checked against the creator's options from creator_info): choosing another privacy level is not offered.",
      },
    ],
  }),
  youtube: oauthProvider("youtube", {
    display_name: "YouTube",
    description:
      "Uploads one video per rendition through the YouTube Data API (videos.insert, resumable upload in 8 MiB chunks, resumed after a crash from what YouTube reports holding), then polls processing until the video is processed or rejected; title from the rendition (100 characters), its text the description (5,000 characters); uploaded private. A publication without a video is refused at creation.",
    capabilities: ["publish", "video", "analytics"],
    thread_replies_supported: false,
    analytics_ready: true,
    facts: {
      approval: "The operator creates a Google Cloud OAuth client with the YouTube Data API enabled; unverified apps upload private videos only.",
      authorization:
        "Google OAuth 2.0 authorization code with PKCE and access_type=offline; scopes https://www.googleapis.com/auth/youtube.upload and https://www.googleapis.com/auth/youtube.readonly (statistics).",
      configuration: "youtube_client_id and youtube_client_secret instance settings; redirect URI <PUBLIC_BASE_URL>/accounts/connect/youtube/callback.",
      control: "The user can revoke access in their Google account.",
      live_certification: "Not certified against www.googleapis.com from this deployment.",
      local_test:
        "Tested against a local stand-in written from the YouTube Data API reference (test/peers/youtube-api.ts), including a 200 MB upload resumed after a kill.",
      policy:
        "Access tokens last an hour and are refreshed with the refresh token. A video exists on YouTube only once its last chunk is in; the upload session and then the video id are kept, so a retry continues the same upload and never makes a second video. Each upload costs 1,600 quota units of the project's 10,000 a day. While YouTube processes, the delivery polls on its retry schedule (8 attempts), then ends failed with verify_on_platform. Analytics: subscribers (unavailable when the channel hides them) and each video's views, likes and comments from channels.list, the uploads playlist and videos.list, a few quota units a run.",
    },
  }),
  discord: {
    platform: "discord",
    display_name: "Discord (channel webhook)",
    description: "Posts to a Discord channel through a channel webhook URL; each segment is one message of up to 2,000 characters.",
    auth_mode: "webhook_url",
    connection_modes: ["url"],
    instance_url: null,
    capabilities: ["publish", "segments", "attachments", "alt_text"],
    messaging_supported: false,
    thread_replies_supported: false,
    analytics_ready: false,
    oauth: false,
    limits: PLATFORM_LIMITS.discord,
    facts: {
      approval: "None needed: a channel manager creates the webhook (Server settings → Integrations → Webhooks).",
      authorization: "The webhook URL is the credential; it is stored encrypted and never returned.",
      configuration: "None by the operator.",
      control: "Delete the webhook in Discord, or the account here, to stop deliveries.",
      live_certification: "Not certified against discord.com from this deployment.",
      local_test:
        "Tested against a local test double written from Discord's developer documentation (Get Webhook, Execute Webhook, Get Webhook Message, rate limits), directly and through the provider conformance suite.",
      policy:
        "Each segment is one message sent with ?wait=true, its id recorded as it is confirmed; a thread goes out as consecutive messages. Discord takes no idempotency key and a webhook cannot list its messages, so a message whose answer was lost is never sent again: the rendition ends failed with verify_on_platform. 401 or 404 (a deleted webhook) asks to reconnect with a new webhook URL; a 429 waits for Discord's X-RateLimit-Reset-After.",
    },
    blockers: [
      {
        code: "analytics_not_available",
        detail: "A channel webhook cannot read messages back: no reactions, views or reach, so analytics are unavailable, never zero.",
      },
      { code: "reposts_not_available", detail: "A channel webhook can only post new messages; Discord has nothing to repost them with." },
      { code: "messages_not_applicable", detail: "A channel webhook cannot read the channel." },
    ],
  },
};

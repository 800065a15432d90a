import type { OAuthNetwork } from "../../settings";
import type { OAuthPlatform } from "./spec";

export const OAUTH_PLATFORMS: Record<OAuthNetwork, OAuthPlatform> = {
  x: {
    authorizeUrl: "https://x.com/i/oauth2/authorize",
    tokenUrl: "https://api.x.com/2/oauth2/token",
    scopes: ["tweet.read", "tweet.write", "users.read", "offline.access", "media.write"],
    scopeSeparator: " ",
    pkce: true,
    // "Working with confidential clients": Basic authentication on the token endpoints.
    clientAuth: "basic",
    clientIdParam: "client_id",
    refresh: "refresh_token",
    reference: "docs.x.com, OAuth 2.0 Authorization Code Flow with PKCE (user access token)",
  },
  linkedin: {
    authorizeUrl: "https://www.linkedin.com/oauth/v2/authorization",
    tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
    scopes: ["openid", "profile", "w_member_social"],
    scopeSeparator: " ",
    // PKCE is for LinkedIn's native-app flow; web apps use the plain authorization code with the secret.
    pkce: false,
    clientAuth: "body",
    clientIdParam: "client_id",
    // Refresh tokens only for apps LinkedIn enables them for; without one the member reconnects after 60 days.
    refresh: "refresh_token",
    reference: "learn.microsoft.com/linkedin, Authorization Code Flow (3-legged OAuth) and Programmatic Refresh Tokens",
  },
  threads: {
    authorizeUrl: "https://threads.com/oauth/authorize",
    tokenUrl: "https://graph.threads.net/oauth/access_token",
    scopes: ["threads_basic", "threads_content_publish", "threads_manage_insights"],
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "body",
    clientIdParam: "client_id",
    refresh: "th_refresh_token",
    longLivedExchangeUrl: "https://graph.threads.net/access_token",
    refreshUrl: "https://graph.threads.net/refresh_access_token",
    // A long-lived token refreshes only once it is a day old and before its 60 days end: a week ahead.
    refreshAheadSeconds: 7 * 24 * 3600,
    reference: "developers.facebook.com/docs/threads, Get Access Tokens and Permissions; Long-Lived Tokens",
  },
  facebook: {
    authorizeUrl: "https://www.facebook.com/v21.0/dialog/oauth",
    tokenUrl: "https://graph.facebook.com/v21.0/oauth/access_token",
    scopes: ["pages_show_list", "pages_manage_posts", "pages_read_engagement"],
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "body",
    clientIdParam: "client_id",
    // The code's token is exchanged for a 60-day user token (fb_exchange_token); the Page token Herald keeps, read
    // with it, never expires, so there is nothing to refresh: a revoked one asks for a reconnection.
    refresh: "none",
    longLivedExchangeUrl: "https://graph.facebook.com/v21.0/oauth/access_token",
    longLivedGrant: "fb_exchange_token",
    reference: "developers.facebook.com/docs/facebook-login, Manually Build a Login Flow (Graph API v21.0)",
  },
  instagram: {
    authorizeUrl: "https://www.facebook.com/v21.0/dialog/oauth",
    tokenUrl: "https://graph.facebook.com/v21.0/oauth/access_token",
    // instagram_manage_insights: media insights and followers_count for analytics (lib/platforms/instagram/analytics.ts).
    scopes: ["instagram_basic", "instagram_content_publish", "instagram_manage_insights", "pages_show_list", "pages_read_engagement"],
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "body",
    clientIdParam: "client_id",
    // As facebook: the Page's never-expiring token, read with a 60-day user token, publishes for its Instagram account.
    refresh: "none",
    longLivedExchangeUrl: "https://graph.facebook.com/v21.0/oauth/access_token",
    longLivedGrant: "fb_exchange_token",
    reference: "developers.facebook.com/docs/instagram-platform, Instagram API with Facebook Login (Graph API v21.0)",
  },
  tiktok: {
    authorizeUrl: "https://www.tiktok.com/v2/auth/authorize/",
    tokenUrl: "https://open.tiktokapis.com/v2/oauth/token/",
    // video.list and user.info.stats: the Display API's video list and follower count (lib/platforms/tiktok/analytics.ts).
    scopes: ["user.info.basic", "video.publish", "video.list", "user.info.stats"],
    scopeSeparator: ",",
    pkce: true,
    clientAuth: "body",
    clientIdParam: "client_key",
    refresh: "refresh_token",
    reference: "developers.tiktok.com, Login Kit for Web and Manage User Access Tokens",
  },
  youtube: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    scopes: ["https://www.googleapis.com/auth/youtube.upload", "https://www.googleapis.com/auth/youtube.readonly"],
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "basic",
    clientIdParam: "client_id",
    // offline: a refresh token; consent: issued again on every connection, not only the first.
    extraAuthorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
    refresh: "refresh_token",
    reference: "developers.google.com/identity/protocols/oauth2/web-server (Using OAuth 2.0 for Web Server Applications)",
  },
};

export const isOAuthPlatform = (platform: string): platform is OAuthNetwork => Object.hasOwn(OAUTH_PLATFORMS, platform);

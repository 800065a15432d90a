import type { ConnectedAccount, NotApplicable, PlatformPost, ProviderDriver, SuiteContext, ThreadBehaviour, TimeoutOutcome } from "../driver";
import { configureOAuth, connectOAuth, expireAtHerald, type OAuthClient } from "./oauth-connect";

/**
 * A driver for a stand-in in test/peers/ that serves the platform's API and its OAuth endpoints together: connection
 * through Herald's OAuth flow, every fault the stand-in's own documented answer, token refresh counted at the
 * stand-in's token endpoint. What differs between platforms is declared; the rest is here once. A stand-in whose
 * accounts are not plain ids (TikTok's users, YouTube's channels, Meta's Pages of users) is wrapped by its driver.
 */

/** What such a stand-in offers, by the account's platform id (the shape x-api.ts, threads-api.ts and linkedin-api.ts share). */
export interface OAuthStandIn<Post> {
  url: string;
  stop(): Promise<void>;
  oauth: { authority: { refreshCount: number } } | null;
  /** Ids of the users whose post was stored and never answered (hangNext). */
  hung: string[];
  addAccount(): { id: string };
  /** The next authorization approves this user. */
  connectNext(id: string): unknown;
  tokensOf(id: string): string[];
  /** Every token of the user stops working (revoked, or expired at the platform). */
  expireTokensOf(id: string): unknown;
  rateLimitNext(n: number, resetAt: Date): unknown;
  hangNext(n: number): unknown;
  postsOf(id: string): Post[];
}

export interface OAuthStandInSpec<Post> {
  platform: string;
  label: string;
  textLimit: number;
  threads: ThreadBehaviour;
  timeoutOutcome: TimeoutOutcome;
  /** Default: supported. */
  images?: ProviderDriver["images"];
  requiresMedia?: ProviderDriver["requiresMedia"];
  rateLimitWindow?: ProviderDriver["rateLimitWindow"];
  /** Default: supported (the access token expires and is refreshed); otherwise why not. */
  noTokenRefresh?: NotApplicable;
  /** Default `herald-<platform>-conformance`. */
  clientId?: string;
  start(oauth: OAuthClient): Promise<OAuthStandIn<Post>>;
  /** One of the stand-in's stored posts as the suite reads it. */
  post(stored: Post): PlatformPost;
}

export function oauthStandInDriver<Post>(spec: OAuthStandInSpec<Post>): ProviderDriver {
  const client: OAuthClient = { clientId: spec.clientId ?? `herald-${spec.platform}-conformance`, clientSecret: `${spec.platform}-client-secret-conformance` };
  let api: OAuthStandIn<Post>;
  let suite: SuiteContext;
  const unauthorized = async (account: ConnectedAccount) => void api.expireTokensOf(account.platformRef);
  return {
    platform: spec.platform,
    label: spec.label,
    textLimit: spec.textLimit,
    threads: spec.threads,
    images: spec.images ?? { supported: true },
    requiresMedia: spec.requiresMedia,
    rateLimitWindow: spec.rateLimitWindow,
    timeoutOutcome: spec.timeoutOutcome,
    tokenRefresh: spec.noTokenRefresh ?? {
      supported: true,
      async expireAccessToken(_ws, account) {
        await unauthorized(account);
        await expireAtHerald(account.id);
      },
      refreshCount: () => api.oauth!.authority.refreshCount,
    },

    async start(s) {
      suite = s;
      api = await spec.start(client);
      configureOAuth(suite, spec.platform, api.url, client);
    },
    async stop() {
      await api?.stop();
    },

    async connect(ws) {
      const user = api.addAccount();
      api.connectNext(user.id);
      const id = await connectOAuth(suite, ws, spec.platform);
      return { id, platformRef: user.id, secrets: [client.clientSecret, ...api.tokensOf(user.id)] };
    },
    async posts(account) {
      return api.postsOf(account.platformRef).map(spec.post);
    },

    faults: {
      unauthorized,
      async rateLimitNext(_account, resetAt) {
        api.rateLimitNext(1, resetAt);
      },
      async hangAfterAcceptingNext() {
        api.hangNext(1);
      },
      unanswered: (account) => api.hung.filter((id) => id === account.platformRef).length,
    },
  };
}

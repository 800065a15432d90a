import { type MetaGraphApiPeer, startMetaGraphApi } from "../../peers/meta-graph-api";
import type { ProviderDriver, SuiteContext } from "../driver";
import { configureOAuth, connectOAuth } from "./oauth-connect";

/**
 * Instagram professional accounts against the test double written from Meta's Graph API and Instagram Content
 * Publishing reference (test/peers/meta-graph-api.ts: Instagram cannot run here), which also serves Facebook
 * Login's endpoints. A connection is the Instagram account of the user's first Page linked to one, kept with the
 * Page token. Every Instagram post needs an image, so the text cases attach one (`requiresMedia`); the double
 * fetches it from Herald's signed media URL when the container is created, as Instagram does. Faults on
 * media_publish: Graph's code 190 for a dead token, a rate limit (429, Graph code 4) with the usage header and a
 * Retry-After, a publish done whose answer never comes.
 */

const CLIENT = { clientId: "herald-instagram-conformance", clientSecret: "instagram-client-secret-conformance" };
let api: MetaGraphApiPeer;
let suite: SuiteContext;
const owners = new Map<string, string>();

export const instagramDriver: ProviderDriver = {
  platform: "instagram",
  label: "instagram (documented test double)",
  textLimit: 2_200,
  threads: { kind: "one_post", documented: "Instagram has no threads: the segments are joined into one caption, a blank line between them" },
  images: { supported: true },
  requiresMedia: { kind: "image", reason: "An Instagram post is an image (or a carousel, or a Reel); there are no text-only posts" },
  // No idempotency key; Herald reads the account's recent media to find it.
  timeoutOutcome: "reconciled",
  tokenRefresh: { supported: false, reason: "Page tokens read with a long-lived user token never expire: nothing to refresh" },

  async start(s) {
    suite = s;
    api = await startMetaGraphApi({ oauth: CLIENT });
    configureOAuth(suite, "instagram", api.url, CLIENT);
  },
  async stop() {
    await api?.stop();
  },

  async connect(ws) {
    const { user, page } = api.addUser({ instagram: true });
    const igId = page.ig!.id;
    owners.set(igId, user.id);
    api.connectNext(user);
    const id = await connectOAuth(suite, ws, "instagram");
    return { id, platformRef: igId, secrets: [CLIENT.clientSecret, ...api.tokensOf(user.id)] };
  },

  async posts(account) {
    return api.postsOf(account.platformRef).map((p) => ({
      id: p.id,
      text: p.text,
      replyTo: null,
      // A Reel's video is its one medium (fetched by the double from Herald's signed URL).
      media: p.video ? [{ bytes: p.video, altText: null }] : p.images.map((i) => ({ bytes: i.bytes, altText: i.alt })),
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

import { metaStandIn } from "./meta-stand-in";
import { oauthStandInDriver } from "./oauth-stand-in";

/**
 * Instagram professional accounts against the test double written from Meta's Graph API and Instagram Content
 * Publishing reference (test/peers/meta-graph-api.ts: Instagram cannot run here), which also serves Facebook
 * Login's endpoints. A connection is the Instagram account of the user's first Page linked to one, kept with the
 * Page token. Every Instagram post needs an image, so the text cases attach one (`requiresMedia`); the double
 * fetches it from Herald's signed media URL when the container is created, as Instagram does. Faults on
 * media_publish: Graph's code 190 for a dead token, a rate limit (429, Graph code 4) with the usage header and a
 * Retry-After, a publish done whose answer never comes.
 */
export const instagramDriver = oauthStandInDriver({
  platform: "instagram",
  label: "instagram (documented test double)",
  textLimit: 2_200,
  threads: { kind: "one_post", documented: "Instagram has no threads: the segments are joined into one caption, a blank line between them" },
  requiresMedia: { kind: "image", reason: "An Instagram post is an image (or a carousel, or a Reel); there are no text-only posts" },
  // No idempotency key; Herald reads the account's recent media to find it.
  timeoutOutcome: "reconciled",
  noTokenRefresh: { supported: false, reason: "Page tokens read with a long-lived user token never expire: nothing to refresh" },
  start: (oauth) => metaStandIn(oauth, "instagram"),
  post: (p) => ({
    id: p.id,
    text: p.text,
    replyTo: null,
    // A Reel's video is its one medium (fetched by the double from Herald's signed URL).
    media: p.video ? [{ bytes: p.video, altText: null }] : p.images.map((i) => ({ bytes: i.bytes, altText: i.alt })),
  }),
});

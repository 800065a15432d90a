import { metaStandIn } from "./meta-stand-in";
import { oauthStandInDriver } from "./oauth-stand-in";

/**
 * Facebook Pages against the test double written from Meta's Graph API reference (test/peers/meta-graph-api.ts:
 * Facebook cannot run here), which also serves Facebook Login's endpoints (the code, then fb_exchange_token for a
 * long-lived user token). A connection is the user's first Page, kept with its Page token. Facebook fetches
 * photos from Herald's signed media URLs, so the double fetches them from the suite's Herald over HTTP. Faults:
 * Graph's code 190 for a dead token, a rate limit (429, Graph code 4) with the usage header's
 * estimated_time_to_regain_access and a Retry-After, a post made whose answer never comes.
 */
export const facebookDriver = oauthStandInDriver({
  platform: "facebook",
  label: "facebook (documented test double)",
  textLimit: 63_206,
  threads: { kind: "one_post", documented: "Page posts have no reply chains: the segments are joined into one post, a blank line between them" },
  // No idempotency key; Herald reads the Page's published posts to find it.
  timeoutOutcome: "reconciled",
  noTokenRefresh: { supported: false, reason: "Page tokens read with a long-lived user token never expire: nothing to refresh" },
  start: (oauth) => metaStandIn(oauth, "page"),
  post: (p) => ({ id: p.id, text: p.text, replyTo: null, media: p.images.map((i) => ({ bytes: i.bytes, altText: i.alt })) }),
});

import { startLinkedInApi } from "../../peers/linkedin-api";
import { oauthStandInDriver } from "./oauth-stand-in";

/**
 * LinkedIn against the test double written from LinkedIn's Posts, Images and userinfo API reference
 * (test/peers/linkedin-api.ts: LinkedIn cannot run here), which also serves LinkedIn's OAuth 2.0 endpoints
 * (test/peers/oauth-server.ts at LinkedIn's paths). The member is one whose app has r_member_social (the double's
 * default), so reconciliation can read the member's posts; without it the timeout case would end
 * verify_on_platform (tested in test/providers-linkedin.test.ts).
 */
export const linkedinDriver = oauthStandInDriver({
  platform: "linkedin",
  label: "linkedin (documented test double)",
  textLimit: 3000,
  threads: { kind: "one_post", documented: "no replies in the Posts API: the segments are joined into one post, refused at creation over 3,000 characters" },
  timeoutOutcome: "reconciled",
  start: (oauth) => startLinkedInApi({ oauth }),
  post: (p) => ({ id: p.urn, text: p.text, replyTo: null, media: p.images.map((i) => ({ bytes: i.bytes, altText: i.altText })) }),
});

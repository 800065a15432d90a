import { startXApi } from "../../peers/x-api";
import { oauthStandInDriver } from "./oauth-stand-in";

/**
 * X against the test double written from the X API v2 reference (test/peers/x-api.ts: X cannot run here),
 * which also serves X's OAuth 2.0 endpoints (test/peers/oauth-server.ts at X's paths) so the connection goes
 * through start → authorize → Herald's callback. Its faults are X's own answers: an expired or revoked token's
 * 401, a 429 with x-rate-limit-reset (epoch seconds), a post stored whose answer never comes.
 */
export const xDriver = oauthStandInDriver({
  platform: "x",
  label: "x (documented test double)",
  textLimit: 280,
  threads: { kind: "replies" },
  // X has no idempotency key; Herald reads the account's recent posts (GET /2/users/:id/tweets) to find it.
  timeoutOutcome: "reconciled",
  async start(oauth) {
    const x = await startXApi({ oauth });
    return {
      ...x,
      postsOf: (id: string) =>
        x.postsOf(id).map((p) => ({
          id: p.id,
          text: p.posted,
          replyTo: p.inReplyTo,
          media: p.mediaIds.map((m) => ({ bytes: x.media.get(m)!.bytes, altText: x.media.get(m)!.alt })),
        })),
    };
  },
  post: (p) => p,
});

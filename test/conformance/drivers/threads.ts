import { startThreadsApi } from "../../peers/threads-api";
import { oauthStandInDriver } from "./oauth-stand-in";

/**
 * Threads against the test double written from Meta's Threads API reference (test/peers/threads-api.ts: Threads
 * cannot run here), which also serves Threads' token endpoints (test/peers/oauth-server.ts at Threads' paths:
 * the code, the long-lived exchange, th_refresh_token). Threads fetches images from Herald's signed media URLs,
 * so the double fetches them from the suite's Herald over HTTP. Faults: Graph's code 190 for a dead token, a
 * rate limit (429, Graph code 4) with the usage header's estimated_time_to_regain_access and a Retry-After, a
 * publish done whose answer never comes.
 */
export const threadsDriver = oauthStandInDriver({
  platform: "threads",
  label: "threads (documented test double)",
  textLimit: 500,
  threads: { kind: "replies" },
  // No idempotency key; Herald reads the account's recent posts and replies to find it.
  timeoutOutcome: "reconciled",
  start: (oauth) => startThreadsApi({ oauth }),
  post: (p) => ({ id: p.id, text: p.text ?? "", replyTo: p.replyTo, media: p.images.map((i) => ({ bytes: i.bytes, altText: i.alt })) }),
});

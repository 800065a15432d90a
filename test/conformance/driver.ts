import type { Client } from "openapi-fetch";
import type { Env } from "../../lib/env";
import type { paths } from "../helpers/api-types";

/**
 * The provider conformance suite (test/conformance/providers.test.ts) runs ONE set of cases
 * (./cases.ts) over every provider through a driver: a small file under ./drivers/ that knows how to
 * start the provider's server (the real one where it runs here, e.g. the Bluesky PDS; otherwise a stand-in
 * in test/peers/ written from the platform's public API reference), connect an account through Herald's
 * API, read back what the platform received, and make the platform fail on purpose.
 *
 * Every case goes through Herald's real API and delivery pipeline (POST /publications, publish-now, the
 * outbox relay, SQS and the publish consumer), never through the adapter alone.
 *
 * ## Adding a provider
 * 1. Write `drivers/<platform>.ts` exporting a `ProviderDriver` (copy the closest existing driver:
 *    `discord.ts` for a stand-in with fault injection, `bluesky.ts` for a real server behind a proxy).
 * 2. Add it to the `DRIVERS` list in `drivers/index.ts`.
 * 3. Run `npx vitest run --project node test/conformance/` (`CONFORMANCE_TABLE=1` also writes
 *    test/conformance/last-table.md). A provider is done when every case passes or is n/a by a
 *    capability it declares with its reason; nothing is skipped silently.
 *
 * One server per driver serves every case; each case connects a fresh account in a fresh workspace, so a
 * fault armed for one account never touches another case. Faults are armed for the NEXT post only (or, for
 * `unauthorized`, for that one account from then on), and cases of one driver run one after another.
 */

/** What the suite gives a driver once, before any case. */
export interface SuiteContext {
  /**
   * The env Herald runs with in this suite: its own queues, a local R2 bucket, PUBLIC_BASE_URL set to
   * `baseUrl`. Drivers that configure Herald (instance settings) do it through the API with `adminToken`.
   */
  env: Env;
  /** Herald over real HTTP (test/helpers/serve-gateway.ts): where a platform fetches signed media URLs and an OAuth provider redirects to. */
  baseUrl: string;
  /** An instance administrator's bearer token (PUT /admin/instance-settings: OAuth client ids, API base URLs). */
  adminToken: string;
}

/** A fresh workspace of a fresh user (its owner), made for one case. */
export interface Workspace {
  /** The typed client with the owner's token, over the suite's env. */
  client: Client<paths>;
  token: string;
  userId: string;
  workspaceId: string;
}

/** An account connected through Herald's API, and the driver's handle to it on the platform. */
export interface ConnectedAccount {
  /** Herald's id (AccountResponse.id). */
  id: string;
  /** Whatever the driver needs to find this account on the platform (a DID, an account id, a channel id…). */
  platformRef: string;
  /** Credentials given to Herald (a token, an app password, a webhook URL's token): never in any answer of Herald's. */
  secrets: string[];
}

/** One post (message, status, delivery) as the PLATFORM holds it, read from the platform, not from Herald. */
export interface PlatformPost {
  /** The platform's id for it: what Herald must record as external_id. */
  id: string;
  text: string;
  /** The platform id of the post this one replies to; null for a post that replies to nothing. */
  replyTo: string | null;
  /** For a platform that carries several segments in one post (a webhook delivery): each segment's text, in order. */
  parts?: string[];
  /** The media the platform received with it: the bytes themselves, and the alt text it stored. */
  media: { bytes: Uint8Array; altText: string | null }[];
}

/** Not applicable to this provider, and why (shown in the table as `n/a (reason)`). */
export interface NotApplicable {
  supported: false;
  reason: string;
}

/**
 * How a provider posts a three-segment thread:
 * - `replies`: each segment is a reply to the previous one on the platform;
 * - `consecutive`: each segment is its own post, in order, replying to nothing (the platform has no replies here);
 * - `one_delivery`: one delivery carries every segment (`PlatformPost.parts`);
 * - `one_post`: the segments are joined into one post;
 * - `refused`: a publication of more than one segment is refused at creation (422 naming the destination).
 * `documented` says, in a few words, what the platform's documentation gives (printed in the table).
 */
export type ThreadBehaviour =
  | { kind: "replies" }
  | { kind: "consecutive"; documented: string }
  | { kind: "one_delivery"; documented: string }
  | { kind: "one_post"; documented: string }
  | { kind: "refused"; documented: string };

/**
 * After the platform accepted a post and its answer never came:
 * - `reconciled`: Herald asks the platform, finds the post and publishes nothing again;
 * - `resent_same_id`: the platform cannot be asked; Herald re-sends with the same idempotency id, which the
 *   platform drops as a duplicate (webhooks: the same webhook-id);
 * - `verify_on_platform`: the platform can be neither asked nor given an idempotency id; Herald sends nothing
 *   again and the rendition ends `failed`, `outcome-unknown`, `recovery_action: "verify_on_platform"` after
 *   its attempts (CONTRACT §9).
 */
export type TimeoutOutcome = "reconciled" | "resent_same_id" | "verify_on_platform";

/** OAuth providers: an expired access token is refreshed once, however many deliveries need it at once. */
export interface TokenRefresh {
  supported: true;
  /** Make the account's access token expired (at Herald, and at the platform where it checks expiry). */
  expireAccessToken(ws: Workspace, account: ConnectedAccount): Promise<void>;
  /** How many times the platform's token endpoint refreshed this account's token so far. */
  refreshCount(account: ConnectedAccount): number | Promise<number>;
}

export interface ProviderDriver {
  /** Herald's platform name (`POST /accounts` `platform`, `Rendition.platform`). */
  platform: string;
  /** The table's row label, saying what the server is: "bluesky (real PDS)", "discord (stand-in)". */
  label: string;
  /** One segment's limit as the platform counts it; the over-limit case sends `limit + 1` plain ASCII characters. */
  textLimit: number;
  threads: ThreadBehaviour;
  /** Images with alt text, or why not. */
  images: { supported: true } | NotApplicable;
  timeoutOutcome: TimeoutOutcome;
  tokenRefresh: TokenRefresh | NotApplicable;
  /**
   * The platform's 429 carries no reset time (no header, nothing in the body) and its documentation gives only
   * the window a limit is counted over (TikTok: a one-minute sliding window). Herald then retries once that
   * window has passed since the refused request, and the 429 case checks that instead of `resetAt`.
   */
  rateLimitWindow?: { seconds: number; documented: string };
  /**
   * A post on this platform needs media, and why (shown nowhere else; a text-only publication is refused at
   * creation with a 422): the text cases then attach one image (`image`: Instagram) or one MP4 the test makes
   * (`video`: TikTok, YouTube; test/conformance/herald.ts `uploadVideo`). A video-only platform declares
   * `images: { supported: false, reason }`, so the image case is n/a with that reason, never skipped silently.
   */
  requiresMedia?: { kind: "image"; reason: string } | { kind: "video"; reason: string };

  /** Start the platform's server (once, before every case) and anything in front of it. */
  start(suite: SuiteContext): Promise<void>;
  stop(): Promise<void>;

  /** Connect a new platform account to `ws` through Herald's API (POST /accounts, or OAuth start → platform → callback). */
  connect(ws: Workspace): Promise<ConnectedAccount>;
  /** What the platform holds for this account, oldest first. */
  posts(account: ConnectedAccount): Promise<PlatformPost[]>;

  faults: {
    /** From now on the platform refuses this account's credentials (401), as when they are revoked. */
    unauthorized(account: ConnectedAccount): Promise<void>;
    /** The next post is answered 429 with the platform's OWN rate-limit headers and body, saying the limit resets at `resetAt`. */
    rateLimitNext(account: ConnectedAccount, resetAt: Date): Promise<void>;
    /** The next post is accepted (stored by the platform) and its answer never comes. */
    hangAfterAcceptingNext(account: ConnectedAccount): Promise<void>;
    /**
     * How many of this account's posts the platform took without answering so far: proof that the hang
     * really happened (a driver without it gets "fault not confirmed" in the table).
     */
    unanswered?(account: ConnectedAccount): number;
  };
}

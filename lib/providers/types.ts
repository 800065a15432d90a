import type { Platform } from "../../db/schema/accounts";

/**
 * The one interface every provider adapter implements (webhook, Bluesky, Mastodon). Adapters know
 * the provider's protocol and nothing of our database or HTTP layer; the publish pipeline persists
 * what they report.
 */

/**
 * What an adapter needs of a connected account: public fields plus decrypted credentials.
 *
 * OAuth platforms (x, linkedin, threads, facebook, instagram, tiktok, youtube), the contract adapters rely on:
 * - `credentials.access_token` is already fresh: lib/accounts/fresh-credentials.ts refreshes it (once,
 *   under a row lock) before any adapter is called; adapters never refresh tokens themselves.
 * - `instanceUrl` is the platform's API base URL, read per use from the `<platform>_api_base` instance
 *   setting (the platform's own by default, a stand-in in tests), without a trailing slash.
 * - An adapter throws ProviderError{kind: "authentication", httpStatus: 401} on a 401 (the delivery then ends
 *   with recovery_action "reconnect_account") and ProviderError{kind: "rate_limited", retryAt} on a 429, with
 *   retryAt the platform's reset time (the delivery is then `retrying` with error_retry_at).
 */
export interface AccountContext {
  id: string;
  platform: Platform;
  username: string | null;
  /** Mastodon server or Bluesky PDS; for OAuth platforms the API base URL (see above). */
  instanceUrl: string | null;
  url: string | null;
  externalAccountId: string | null;
  credentials: Record<string, string>;
  /** Whether loopback/private addresses may be contacted (ALLOW_PRIVATE_URLS). */
  allowPrivateUrls: boolean;
}

export interface MediaRef {
  /** Herald's media item (a resumed upload checks its checkpoint is this item's). */
  id?: string;
  url: string;
  mime_type: string;
  alt_text: string | null;
  /** A video's or audio's length as detected at upload (the media row's duration_ms), when known. */
  duration_ms?: number | null;
}

export interface SegmentToPublish {
  position: number;
  title: string | null;
  body: string;
  url: string | null;
  media: MediaRef[];
}

export interface RenditionToPublish {
  publicationId: string;
  renditionId: string;
  title: string | null;
  segments: SegmentToPublish[];
  /**
   * Stable for the rendition across every retry and redelivery: the webhook-id, the seed of Bluesky
   * record keys and of Mastodon Idempotency-Keys. Reusing it is what makes a retry safe.
   */
  deliveryKey: string;
}

/** A post on the provider. For Bluesky `id` is the at:// URI and `cid` its content hash. */
export interface PostRef {
  id: string;
  url: string | null;
  cid?: string;
}

export interface PublishProgress {
  /** Segments already confirmed posted, by position (from earlier attempts). */
  posted: Map<number, PostRef>;
  /** Called as soon as a segment is confirmed, so the pipeline records it before the next one. */
  onPosted(position: number, ref: PostRef): Promise<void>;
  /** Durable upload progress for chunked video uploads (lib/providers/chunked-upload.ts); absent outside a delivery. */
  uploads?: UploadCheckpoints;
}

/** Where one media item's chunked upload stands on its platform (persisted per rendition and media key). */
export interface UploadCheckpoint {
  /** The platform's upload session (YouTube's session URI, TikTok's upload_url). */
  session: string;
  /** The platform's id for what is being uploaded, once known (TikTok's publish_id; YouTube's video id after the last chunk). */
  platformId: string | null;
  total: number;
  chunkSize: number;
  /** Bytes the platform confirmed so far: the next chunk starts here. */
  offset: number;
  /** `processing`: every byte is there and the platform is processing it (polled until it ends). */
  phase: "uploading" | "processing";
  /** What is being uploaded (the media item and its length): a checkpoint of another file is never resumed with this one. */
  media?: string;
}

/** The pipeline's durable store for UploadCheckpoint; `save` renews the delivery's lease and throws once it is lost. */
export interface UploadCheckpoints {
  load(key: string): Promise<UploadCheckpoint | null>;
  save(key: string, checkpoint: UploadCheckpoint): Promise<void>;
  clear(key: string): Promise<void>;
}

export interface PublishResult {
  /** The rendition's post (the first segment of a thread, or the webhook's answer). */
  external_id: string | null;
  external_url: string | null;
}

export type ProviderErrorKind = "authentication" | "validation" | "rate_limited" | "unavailable" | "network" | "configuration" | "unknown";

/** A provider failure, classified so the pipeline can decide: retry, give up, or reconcile. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly info: {
      kind: ProviderErrorKind;
      /** Short machine code, e.g. `http_500`, `InvalidRequest`, `ECONNREFUSED`. */
      code: string;
      httpStatus?: number;
      retryable: boolean;
      /** When the provider said to come back (Retry-After, rate-limit reset). */
      retryAt?: Date;
      /** True when the request may have taken effect (timeout, connection cut after sending). */
      outcomeUnknown?: boolean;
      /**
       * With outcomeUnknown, from `reconcile`: the platform can never say what was posted (a Discord webhook cannot
       * list its messages), so asking again is pointless and the delivery ends at once with `verify_on_platform`.
       */
      unverifiable?: boolean;
    },
  ) {
    super(message);
  }
}

export interface ProviderProfile {
  username: string | null;
  avatar_url: string | null;
  external_account_id: string | null;
  /** Mastodon-API servers: the software (mastodon, pleroma, …) and the canonical instance URL. */
  fediverse_software?: string | null;
  instance_url?: string | null;
  /** The server's own text limit where it announces one. */
  text_limit?: number | null;
  /** `personal`, `bot`, `group` (Mastodon says which), `endpoint` for webhooks. */
  account_kind?: string | null;
  /**
   * OAuth: credentials to keep INSTEAD of the user's tokens (Facebook and Instagram keep the Page's token, read
   * with the user's), and when they expire (null: never). Never returned by Herald's API.
   */
  credentials?: Record<string, string>;
  credentialsExpireInSeconds?: number | null;
}

export interface InboundMessage {
  external_id: string;
  kind: "mention" | "reply";
  author_handle: string;
  text: string;
  url: string | null;
  in_reply_to_external_id: string | null;
  created_at: string;
}

export interface ProviderAdapter {
  platform: Platform;
  /** Text limit of one segment for this account (Bluesky 300 graphemes; Mastodon 500 unless the server says otherwise). */
  textLimit(account: Pick<AccountContext, "instanceUrl">, announced?: number | null): number;
  /** Length of a text as the provider counts it (graphemes; Mastodon counts every URL as 23). */
  measure(text: string): number;
  /** Publish the segments not yet in `progress.posted`, as a thread where the platform has threads. */
  publish(account: AccountContext, rendition: RenditionToPublish, progress: PublishProgress): Promise<PublishResult>;
  /**
   * After an attempt whose outcome is unknown: find what was actually posted, so nothing is posted
   * twice. Returns the segments found (by position); the pipeline then publishes only the rest.
   */
  reconcile(account: AccountContext, rendition: RenditionToPublish): Promise<Map<number, PostRef>>;
  /** Read the account's profile from the provider (refresh-metadata, and on connect). */
  readProfile(account: AccountContext): Promise<ProviderProfile>;
  /** Mentions and replies, where the provider has them. */
  readMessages?(account: AccountContext, opts: { since?: string }): Promise<InboundMessage[]>;
}

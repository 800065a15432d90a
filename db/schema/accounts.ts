import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users, workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export const PLATFORMS = ["webhook", "bluesky", "mastodon", "x", "linkedin", "threads", "facebook", "instagram", "tiktok", "youtube", "discord"] as const;
export type Platform = (typeof PLATFORMS)[number];
export const isPlatform = (p: string): p is Platform => (PLATFORMS as readonly string[]).includes(p);

/** `reconnect_required`: the platform refused the account's token or its refresh; it is not sent to until reconnected. */
export const ACCOUNT_STATUSES = ["active", "reconnect_required"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** OAuth connections in progress (POST /accounts/connect/{platform}/start): single use, bound to user and workspace. */
export const oauthStates = pgTable(
  "oauth_states",
  {
    /** SHA-256 of the state sent to the platform; the state itself is never stored. */
    stateHash: text("state_hash").primaryKey(),
    platform: text("platform").$type<Platform>().notNull(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Where the browser goes back to, on PUBLIC_BASE_URL's origin; null for the default page. */
    redirectUri: text("redirect_uri"),
    /** The PKCE code verifier, sealed under INSTANCE_SECRET_KEY; null for platforms without PKCE. */
    codeVerifierCiphertext: text("code_verifier_ciphertext"),
    expiresAt: ts("expires_at").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("oauth_states_expires_idx").on(t.expiresAt)],
);

/** A connected social account (CONTRACT.md §4). Credentials are AES-GCM ciphertext, never returned. */
export const socialAccounts = pgTable(
  "social_accounts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    platform: text("platform").$type<Platform>().notNull(),
    username: text("username"),
    avatarUrl: text("avatar_url"),
    /** Mastodon-API server or Bluesky PDS base URL. */
    instanceUrl: text("instance_url"),
    /** Webhook endpoint. */
    url: text("url"),
    /** Provider's own id for the account (a DID on Bluesky, an account id on Mastodon). */
    externalAccountId: text("external_account_id"),
    fediverseSoftware: text("fediverse_software"),
    /** `personal`, `bot`, `group` (as the provider says), `endpoint` for webhooks. */
    accountKind: text("account_kind").notNull().default("personal"),
    /** The text limit the provider announced for this account (Mastodon-API servers), else null. */
    textLimit: integer("text_limit"),
    credentialsCiphertext: text("credentials_ciphertext"),
    /** OAuth accounts: `reconnect_required` once the platform refused a refresh (CONTRACT §9). */
    status: text("status").$type<AccountStatus>().notNull().default("active"),
    /** OAuth accounts: when the sealed access token expires (null: it does not, or the platform did not say). */
    tokenExpiresAt: ts("token_expires_at"),
    /** OAuth accounts: when the token was last refreshed (the refresh runs under a row lock; this is for operators). */
    tokenRefreshedAt: ts("token_refreshed_at"),
    isActive: boolean("is_active").notNull().default(true),
    messagesEnabled: boolean("messages_enabled").notNull().default(true),
    capabilityCheckedAt: ts("capability_checked_at"),
    /** Message collection: when it last succeeded, and why the last attempt could not (null when it did). */
    messagesCollectedAt: ts("messages_collected_at"),
    messagesErrorCode: text("messages_error_code"),
    /**
     * Set by DELETE when published renditions still name the account: the row stays for their history,
     * credentials are erased, and the account is no longer listed or usable.
     */
    disconnectedAt: ts("disconnected_at"),
    createdBy: text("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("social_accounts_workspace_idx").on(t.workspaceId, t.createdAt),
    // One connection per provider account and workspace (webhooks have no provider id and may repeat).
    uniqueIndex("social_accounts_provider_account_key")
      .on(t.workspaceId, t.platform, t.instanceUrl, t.externalAccountId)
      .where(sql`${t.externalAccountId} is not null and ${t.disconnectedAt} is null`),
    check(
      "social_accounts_platform_check",
      sql`${t.platform} in ('webhook','bluesky','mastodon','x','linkedin','threads','facebook','instagram','tiktok','youtube','discord')`,
    ),
    check("social_accounts_status_check", sql`${t.status} in ('active','reconnect_required')`),
  ],
);

export type MessageKind = "mention" | "reply";

/** Mentions and replies collected from providers (POST /messages/refresh). Stored once per account and provider id. */
export const inboundMessages = pgTable(
  "inbound_messages",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    socialAccountId: text("social_account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "cascade" }),
    platform: text("platform").$type<Platform>().notNull(),
    externalId: text("external_id").notNull(),
    kind: text("kind").$type<MessageKind>().notNull(),
    authorHandle: text("author_handle").notNull(),
    text: text("text").notNull(),
    url: text("url"),
    inReplyToExternalId: text("in_reply_to_external_id"),
    /** When the provider says the message was written. */
    sentAt: ts("sent_at").notNull(),
    collectedAt: ts("collected_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("inbound_messages_account_external_key").on(t.socialAccountId, t.externalId),
    // GET /messages: newest first within a workspace, optionally one account.
    // Ascending: scanned backwards for newest first (a DESC NULLS LAST index would not match ORDER BY … DESC).
    index("inbound_messages_workspace_idx").on(t.workspaceId, t.sentAt, t.id),
    index("inbound_messages_account_idx").on(t.socialAccountId, t.sentAt, t.id),
  ],
);

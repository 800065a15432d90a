import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users, workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export const PLATFORMS = ["webhook", "bluesky", "mastodon"] as const;
export type Platform = (typeof PLATFORMS)[number];

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
    check("social_accounts_platform_check", sql`${t.platform} in ('webhook','bluesky','mastodon')`),
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

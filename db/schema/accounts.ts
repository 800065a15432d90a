import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users, workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export const PLATFORMS = ["webhook", "bluesky", "mastodon"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** A connected social account (CONTRACT.md §4). Credentials are AES-GCM ciphertext, never returned. */
export const socialAccounts = pgTable(
  "social_accounts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
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
    credentialsCiphertext: text("credentials_ciphertext"),
    isActive: boolean("is_active").notNull().default(true),
    messagesEnabled: boolean("messages_enabled").notNull().default(true),
    capabilityCheckedAt: ts("capability_checked_at"),
    createdBy: text("created_by").notNull().references(() => users.id),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("social_accounts_workspace_idx").on(t.workspaceId, t.createdAt),
    check("social_accounts_platform_check", sql`${t.platform} in ('webhook','bluesky','mastodon')`),
  ],
);

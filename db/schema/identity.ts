import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, check } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    displayName: text("display_name").notNull().default(""),
    username: text("username"),
    avatarUrl: text("avatar_url"),
    isAdmin: boolean("is_admin").notNull().default(false),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("users_email_lower_key").on(sql`lower(${t.email})`)],
);

export const apiTokens = pgTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the token; the token itself is shown once and never stored. */
    tokenHash: text("token_hash").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    revokedAt: ts("revoked_at"),
    /** When it stops working (CONTRACT §9: 1 to 365 days after it was made); null: never. */
    expiresAt: ts("expires_at"),
    /** Moved by each request it authenticates (lib/auth/tokens.ts). */
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [uniqueIndex("api_tokens_hash_key").on(t.tokenHash), index("api_tokens_user_idx").on(t.userId)],
);

export type OrganizationKind = "personal" | "team";

/**
 * An organization is what is billed (CONTRACT.md §8; billing.ts holds its members and subscriptions). It is
 * defined here, beside users and workspaces, because both refer to it: every user has exactly one personal
 * organization (made with the user), and a workspace belongs to one organization.
 */
export const organizations = pgTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    kind: text("kind").$type<OrganizationKind>().notNull(),
    ownerUserId: text("owner_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("organizations_personal_key").on(t.ownerUserId).where(sql`${t.kind} = 'personal'`),
    check("organizations_kind_check", sql`${t.kind} in ('personal','team')`),
  ],
);

export const workspaces = pgTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    revision: integer("revision").notNull().default(1),
    /** The organization billed for it (CONTRACT.md §8): its creator's personal one unless another was chosen. */
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    createdBy: text("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("workspaces_organization_idx").on(t.organizationId)],
);

export const ROLES = ["owner", "admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const workspaceMembers = pgTable(
  "workspace_members",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index("workspace_members_user_idx").on(t.userId),
    check("workspace_members_role_check", sql`${t.role} in ('owner','admin','editor','viewer')`),
  ],
);

/**
 * An invitation to join a workspace (CONTRACT §9): for one e-mail address at one role, good for one use
 * within 7 days. Only the SHA-256 of its token is stored; the token is shown once, to whoever invited.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").$type<Role>().notNull(),
    tokenHash: text("token_hash").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    acceptedAt: ts("accepted_at"),
    acceptedBy: text("accepted_by").references(() => users.id, { onDelete: "set null" }),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("invitations_token_hash_key").on(t.tokenHash),
    index("invitations_workspace_idx").on(t.workspaceId, t.createdAt),
    // The retention sweep's range (lib/retention/bookkeeping.ts).
    index("invitations_expires_idx").on(t.expiresAt),
    check("invitations_role_check", sql`${t.role} in ('owner','admin','editor','viewer')`),
  ],
);

import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** A WebAuthn credential (passkey) registered by a user; the private key never leaves the authenticator. */
export const passkeys = pgTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The credential id (base64url) the authenticator names in each assertion. */
    credentialId: text("credential_id").notNull().unique(),
    /** COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    /** Signature counter last seen; one that goes backwards signals a cloned authenticator. */
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: jsonb("transports").$type<string[]>().notNull().default([]),
    createdAt: ts("created_at").notNull().defaultNow(),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [index("passkeys_user_idx").on(t.userId)],
);

/**
 * Single-use WebAuthn challenges (5 minutes): a registration's, stored when it starts; a sign-in's, stored only
 * when it is spent (its id is signed, lib/auth/sign-in-challenge.ts), so that anyone asking for one writes nothing.
 */
export const webauthnChallenges = pgTable(
  "webauthn_challenges",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose").$type<"register" | "sign_in">().notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    challenge: text("challenge").notNull(),
    name: text("name"),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("webauthn_challenges_expires_idx").on(t.expiresAt)],
);

/** Browser sessions opened by a passkey sign-in; only a hash of the session id is stored. */
export const browserSessions = pgTable(
  "browser_sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    passkeyId: text("passkey_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
    lastSeenAt: ts("last_seen_at").notNull().defaultNow(),
    /** Absolute end (7 days after sign-in); the idle limit is counted from last_seen_at. */
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("browser_sessions_user_idx").on(t.userId)],
);

/** Saved instance settings (lib/settings). Secrets are AES-GCM ciphertext under the key named by key_id. */
export const instanceSettings = pgTable("instance_settings", {
  key: text("key").primaryKey(),
  value: text("value"),
  ciphertext: text("ciphertext"),
  keyId: text("key_id"),
  updatedAt: ts("updated_at").notNull().defaultNow(),
  updatedBy: text("updated_by"),
});

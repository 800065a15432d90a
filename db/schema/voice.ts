import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { socialAccounts } from "./accounts";
import { users, workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * SPEC.md 2.2 VoiceDefinition as stored: every member present (missing ones are filled when a profile is
 * written, so readers never meet a partial definition).
 */
export interface VoiceDefinitionValue {
  boundaries: string[];
  disliked_patterns: string[];
  expertise: string[];
  forbidden_phrases: string[];
  opinions: string[];
  recurring_expressions: string[];
  traits: string[];
  vocabulary: string[];
  formality: string;
  humor: string;
  identity_summary: string;
  preferred_language: string;
  corrections: { lesson: string; original: string; preferred: string }[];
  examples: { platform: string; text: string; why_it_fits: string }[];
  interview_answers: { answer: string; question: string }[];
}

/** SPEC.md 2.2 Voice Profiles. At most one per workspace is the default (a partial unique index). */
export const voiceProfiles = pgTable(
  "voice_profiles",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    definition: jsonb("definition").$type<VoiceDefinitionValue>().notNull(),
    schemaVersion: integer("schema_version").notNull().default(1),
    isDefault: boolean("is_default").notNull().default(false),
    revision: integer("revision").notNull().default(1),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    // GET /voice-profiles?workspace_id= pages in (created_at, id) order.
    index("voice_profiles_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
    // The database itself refuses a second default in a workspace, whatever the application does.
    uniqueIndex("voice_profiles_one_default_key").on(t.workspaceId).where(sql`${t.isDefault}`),
  ],
);

/**
 * `assigned_account_ids` of a profile, in the order given. An account speaks in one voice: it is assigned
 * to at most one profile (unique social_account_id). Deleting the account or the profile removes the row.
 */
export const voiceProfileAccounts = pgTable(
  "voice_profile_accounts",
  {
    voiceProfileId: text("voice_profile_id")
      .notNull()
      .references(() => voiceProfiles.id, { onDelete: "cascade" }),
    socialAccountId: text("social_account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    position: integer("position").notNull(),
  },
  (t) => [primaryKey({ columns: [t.voiceProfileId, t.socialAccountId] }), uniqueIndex("voice_profile_accounts_account_key").on(t.socialAccountId)],
);

import type { socialAccounts } from "../../db/schema";
import { PROVIDERS } from "./catalog";

type AccountRow = typeof socialAccounts.$inferSelect;

/** A readable, stable label for an account: platform and username, lower-case, dashes for the rest. */
export function accountSlug(row: Pick<AccountRow, "platform" | "username" | "id">): string {
  const name = (row.username ?? row.id)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  return `${row.platform}-${name || row.id}`;
}

/** SPEC.md 2.8 AccountResponse of a stored account (without `$schema`). Credentials never appear. */
export function presentAccount(row: AccountRow) {
  const spec = PROVIDERS[row.platform];
  return {
    id: row.id,
    platform: row.platform,
    slug: accountSlug(row),
    // The provider's id (a DID, a Mastodon account id); webhooks have none, so Herald's own id stands in.
    account_id: row.externalAccountId ?? row.id,
    account_kind: row.accountKind,
    account_username: row.username,
    account_avatar_url: row.avatarUrl,
    instance_url: row.instanceUrl,
    fediverse_software: row.fediverseSoftware,
    provider_installation_id: null,
    is_active: row.isActive && row.disconnectedAt === null,
    status: row.status,
    messages_enabled: row.messagesEnabled,
    messaging_supported: spec.messaging_supported,
    thread_replies_supported: spec.thread_replies_supported,
    shared_grant: false,
    grant_destination_count: 0,
    limit_profile: "standard",
    capability_checked_at: row.capabilityCheckedAt?.toISOString() ?? null,
  };
}

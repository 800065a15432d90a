import { and, eq, inArray, isNull } from "drizzle-orm";
import { socialAccounts, type Platform } from "../../db/schema";
import type { Queryable } from "../db/client";
import { PROVIDERS } from "./catalog";

/** Platforms whose provider has mentions or replies to collect. */
export const MESSAGING_PLATFORMS = (Object.keys(PROVIDERS) as Platform[]).filter((p) => PROVIDERS[p].messaging_supported);

/** The workspace's accounts that can collect messages: connected, active, messages enabled, on a platform that has them. */
export async function messageCapableAccounts(q: Queryable, workspaceId: string) {
  return q
    .select({ id: socialAccounts.id, platform: socialAccounts.platform })
    .from(socialAccounts)
    .where(
      and(
        eq(socialAccounts.workspaceId, workspaceId), // social_accounts_workspace_idx
        inArray(socialAccounts.platform, MESSAGING_PLATFORMS),
        eq(socialAccounts.isActive, true),
        eq(socialAccounts.messagesEnabled, true),
        isNull(socialAccounts.disconnectedAt),
      ),
    );
}

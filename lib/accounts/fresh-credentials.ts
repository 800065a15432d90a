import { eq, sql } from "drizzle-orm";
import { socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { emitEvent } from "../events/emit";
import { logEvent } from "../log";
import { decryptJson, encryptJson } from "../secrets";
import { ProviderError } from "../providers/types";
import { oauthConfig } from "./oauth-config";
import { isOAuthPlatform } from "../providers/oauth/platforms";
import { GrantRefused, renewTokens } from "../providers/oauth/tokens";

/**
 * An OAuth account's usable credentials, the one place tokens are refreshed (CONTRACT §9). Every caller that
 * hands an account to an adapter (delivery, analytics, messages, reposts, profile reads) comes through here,
 * by lib/accounts/account-context.ts.
 *
 * Race-free: when the access token expires within the platform's margin (by the database's clock), the refresh
 * runs in a transaction holding the account's row lock (SELECT … FOR UPDATE) and re-reads the row under it, so of
 * two deliveries needing a refresh at once one refreshes and the other, waiting on the lock, finds the new token.
 * A refused refresh (400/401: invalid_grant, a revoked grant, no refresh token) marks the account
 * `reconnect_required` and emits `account.reconnect_required` in that transaction, then raises an
 * "authentication" ProviderError, which ends a delivery with recovery_action "reconnect_account".
 */

/** Refresh this long before expiry by default; a platform's row may ask for more (Threads: days, not minutes). */
const DEFAULT_MARGIN_SECONDS = 300;

type AccountRow = typeof socialAccounts.$inferSelect;

export interface FreshCredentials {
  credentials: Record<string, string>;
  /** The platform's API base now in force (the `<platform>_api_base` setting, else the platform's own). */
  apiBase: string;
}

const reconnectRequired = (platform: string, code = "reconnect_required") =>
  new ProviderError(`The ${platform} account must be connected again: the platform no longer accepts its authorization.`, {
    kind: "authentication",
    code,
    httpStatus: 401,
    retryable: false,
  });

type Outcome = { ok: true; credentials: Record<string, string> } | { ok: false; code: string };

export async function freshCredentials(q: Queryable, env: Env, row: Pick<AccountRow, "id" | "platform">): Promise<FreshCredentials> {
  if (!isOAuthPlatform(row.platform)) throw new Error(`${row.platform} is not an OAuth platform`);
  const cfg = await oauthConfig(env, q, row.platform);
  if (!cfg)
    throw new ProviderError(`${row.platform} is not configured on this instance (client id and secret).`, {
      kind: "configuration",
      code: "provider_not_configured",
      retryable: false,
    });
  const margin = cfg.spec.refreshAheadSeconds ?? DEFAULT_MARGIN_SECONDS;
  const secret = env.INSTANCE_SECRET_KEY ?? "";
  const current = sql<boolean>`coalesce(${socialAccounts.tokenExpiresAt} > now() + make_interval(secs => ${margin}), true)`;
  const columns = { ciphertext: socialAccounts.credentialsCiphertext, status: socialAccounts.status, current, workspaceId: socialAccounts.workspaceId };

  // Read again rather than trust the caller's row: another worker may have refreshed since it was loaded.
  const [now] = await q.select(columns).from(socialAccounts).where(eq(socialAccounts.id, row.id));
  if (!now?.ciphertext) throw reconnectRequired(row.platform, "missing_credentials");
  if (now.status === "reconnect_required") throw reconnectRequired(row.platform);
  if (now.current) return { credentials: await decryptJson<Record<string, string>>(secret, now.ciphertext), apiBase: cfg.apiBase };

  const outcome = await q.transaction(async (tx): Promise<Outcome> => {
    const [locked] = await tx.select(columns).from(socialAccounts).where(eq(socialAccounts.id, row.id)).for("update");
    if (!locked?.ciphertext || locked.status === "reconnect_required") return { ok: false, code: "reconnect_required" };
    const credentials = await decryptJson<Record<string, string>>(secret, locked.ciphertext);
    // Refreshed by another caller while this one waited for the lock.
    if (locked.current) return { ok: true, credentials };
    try {
      const tokens = await renewTokens(cfg, credentials, env.ALLOW_PRIVATE_URLS === "true");
      const next: Record<string, string> = { ...credentials, access_token: tokens.access_token };
      if (tokens.refresh_token) next.refresh_token = tokens.refresh_token;
      await tx
        .update(socialAccounts)
        .set({
          credentialsCiphertext: await encryptJson(secret, next),
          tokenExpiresAt: tokens.expiresInSeconds === null ? null : sql`now() + make_interval(secs => ${tokens.expiresInSeconds})`,
          tokenRefreshedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(eq(socialAccounts.id, row.id));
      return { ok: true, credentials: next };
    } catch (err) {
      if (!(err instanceof GrantRefused)) throw err; // unreachable, 5xx, 429: nothing changes, the caller retries
      logEvent("warn", "oauth refresh refused; account needs reconnecting", { account_id: row.id, platform: row.platform, code: err.code });
      await tx.update(socialAccounts).set({ status: "reconnect_required", updatedAt: sql`now()` }).where(eq(socialAccounts.id, row.id));
      await emitEvent(tx, locked.workspaceId, "account.reconnect_required", { account_id: row.id, platform: row.platform, status: "reconnect_required" });
      return { ok: false, code: "refresh_refused" };
    }
  });
  if (!outcome.ok) throw reconnectRequired(row.platform, outcome.code);
  return { credentials: outcome.credentials, apiBase: cfg.apiBase };
}

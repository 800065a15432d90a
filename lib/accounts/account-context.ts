import type { socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { decryptJson } from "../secrets";
import { freshCredentials } from "./fresh-credentials";
import { isOAuthPlatform } from "../providers/oauth/platforms";
import type { AccountContext } from "../providers/types";

type AccountRow = typeof socialAccounts.$inferSelect;

export const allowPrivateUrls = (env: Pick<Env, "ALLOW_PRIVATE_URLS">) => env.ALLOW_PRIVATE_URLS === "true";

/**
 * What an adapter needs of a stored account: its public fields and its credentials, decrypted under
 * INSTANCE_SECRET_KEY for this one use. Callers keep the result in memory only and never log it.
 *
 * OAuth platforms (x, linkedin, threads, …): the access token is refreshed first when it is about to expire
 * (lib/accounts/fresh-credentials.ts, once under a row lock), an account in `reconnect_required` raises an
 * "authentication" ProviderError at once, and `instanceUrl` is the platform's API base in force now. Other
 * platforms are as they were: their credentials never expire here.
 */
export async function accountContext(env: Env, row: AccountRow, q: Queryable): Promise<AccountContext> {
  const base = {
    id: row.id,
    platform: row.platform,
    username: row.username,
    url: row.url,
    externalAccountId: row.externalAccountId,
    allowPrivateUrls: allowPrivateUrls(env),
  };
  if (isOAuthPlatform(row.platform)) {
    const fresh = await freshCredentials(q, env, row);
    return { ...base, instanceUrl: fresh.apiBase, credentials: fresh.credentials };
  }
  const credentials = row.credentialsCiphertext ? await decryptJson<Record<string, string>>(env.INSTANCE_SECRET_KEY ?? "", row.credentialsCiphertext) : {};
  return { ...base, instanceUrl: row.instanceUrl, credentials };
}

import type { socialAccounts } from "../../db/schema";
import type { Env } from "../env";
import { decryptJson } from "../secrets";
import type { AccountContext } from "./types";

type AccountRow = typeof socialAccounts.$inferSelect;

export const allowPrivateUrls = (env: Pick<Env, "ALLOW_PRIVATE_URLS">) => env.ALLOW_PRIVATE_URLS === "true";

/**
 * What an adapter needs of a stored account: its public fields and its credentials, decrypted under
 * INSTANCE_SECRET_KEY for this one use. Callers keep the result in memory only and never log it.
 */
export async function accountContext(env: Pick<Env, "INSTANCE_SECRET_KEY" | "ALLOW_PRIVATE_URLS">, row: AccountRow): Promise<AccountContext> {
  const credentials = row.credentialsCiphertext ? await decryptJson<Record<string, string>>(env.INSTANCE_SECRET_KEY ?? "", row.credentialsCiphertext) : {};
  return {
    id: row.id,
    platform: row.platform,
    username: row.username,
    instanceUrl: row.instanceUrl,
    url: row.url,
    externalAccountId: row.externalAccountId,
    credentials,
    allowPrivateUrls: allowPrivateUrls(env),
  };
}

import { socialAccounts } from "../../db/schema";
import type { Platform } from "../../db/schema/accounts";
import { newId } from "../../lib/ids";
import { encryptJson } from "../../lib/secrets";
import { env, withDb } from "./harness";

/**
 * A connected account row, written directly: connecting through the API verifies credentials
 * against the provider, which these tests do not need. Credentials are encrypted as the API stores them.
 */
export async function newAccount(
  workspaceId: string,
  createdBy: string,
  platform: Platform,
  fields: { url?: string; instanceUrl?: string; username?: string; credentials?: Record<string, string> } = {},
) {
  const id = newId("acc");
  await withDb(async (db) =>
    db.insert(socialAccounts).values({
      id,
      workspaceId,
      platform,
      username: fields.username ?? `${platform}-user`,
      url: fields.url ?? null,
      instanceUrl: fields.instanceUrl ?? null,
      credentialsCiphertext: await encryptJson(env.INSTANCE_SECRET_KEY!, fields.credentials ?? {}),
      createdBy,
    }),
  );
  return id;
}

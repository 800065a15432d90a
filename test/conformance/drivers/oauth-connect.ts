import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { socialAccounts } from "../../../db/schema";
import { withDb } from "../../helpers/harness";
import { expectData } from "../../helpers/typed";
import type { SuiteContext, Workspace } from "../driver";

/**
 * What the OAuth drivers (x, linkedin, threads) share: the operator's app and the platform's base URLs as
 * instance settings, and a connection as a browser makes it (POST /accounts/connect/{platform}/start, the
 * platform's authorize endpoint approving at once, Herald's callback, the redirect carrying `account_id`).
 */

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/**
 * `<platform>_client_id`, `_client_secret`, `_api_base` and `_auth_base` (one stand-in serves both bases) as
 * environment variables of the suite's Herald (they win over saved settings), not saved instance settings, so
 * nothing is shared with other test files. `suite.env` is the one env object the served Herald, the typed client
 * and the publish consumer all use.
 */
export function configureOAuth(suite: SuiteContext, platform: string, base: string, client: OAuthClient): void {
  const key = platform.toUpperCase();
  Object.assign(suite.env, {
    [`${key}_CLIENT_ID`]: client.clientId,
    [`${key}_CLIENT_SECRET`]: client.clientSecret,
    [`${key}_API_BASE`]: base,
    [`${key}_AUTH_BASE`]: base,
  });
}

/** Connects through the OAuth flow over HTTP, as a browser would; Herald's id of the account. */
export async function connectOAuth(suite: SuiteContext, ws: Workspace, platform: string): Promise<string> {
  const start = expectData(
    await ws.client.POST("/accounts/connect/{platform}/start", { params: { path: { platform } }, body: { workspace_id: ws.workspaceId } }),
    201,
  );
  // The browser's part: the platform approves at once, then its redirect reaches Herald's callback over HTTP
  // (under PUBLIC_BASE_URL, the suite's served Herald), which redirects with the account's id.
  const approved = await fetch(start.authorization_url, { redirect: "manual" });
  expect(approved.status).toBe(302);
  const back = await fetch(approved.headers.get("location")!, { redirect: "manual" });
  expect(back.status, await back.clone().text()).toBe(302);
  const landed = new URL(back.headers.get("location")!);
  expect(landed.searchParams.get("error"), "the callback's error").toBeNull();
  const id = landed.searchParams.get("account_id");
  expect(id).toEqual(expect.any(String));
  return id!;
}

/** Herald's copy of the account's access token is past its expiry, so the next delivery refreshes it first. */
export async function expireAtHerald(accountId: string): Promise<void> {
  await withDb((db) =>
    db
      .update(socialAccounts)
      .set({ tokenExpiresAt: new Date(Date.now() - 60_000) })
      .where(eq(socialAccounts.id, accountId)),
  );
}

import { type BearerCall, bearerFetch } from "../../providers/bearer";
import { errorFromResponse, readJson } from "../../providers/http";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Calls to the X API v2 with the account's OAuth 2.0 user access token (refreshed before the adapter is
 * called). Rate limits: X answers 429 with `x-rate-limit-reset`, the epoch second the window reopens.
 */

export const X_API_BASE = "https://api.x.com";

/** The API base for this account: the instance's `x_api_base` setting (a stand-in in tests), else X's own. */
export const xBase = (account: Pick<AccountContext, "instanceUrl">) => (account.instanceUrl ?? X_API_BASE).replace(/\/+$/, "");

export type XInit = Omit<BearerCall, "params" | "headers">;

/** X's problem answers: `{title, detail, type, status}`, or `{errors: [{message}]}` on older paths. */
interface XProblem {
  title?: unknown;
  detail?: unknown;
  errors?: { message?: unknown; detail?: unknown }[];
}

export function problemText(body: XProblem | null): string | undefined {
  if (!body) return undefined;
  if (typeof body.detail === "string") return body.detail;
  const first = body.errors?.[0];
  if (typeof first?.message === "string") return first.message;
  if (typeof first?.detail === "string") return first.detail;
  return typeof body.title === "string" ? body.title : undefined;
}

/** When X says the rate-limit window reopens (epoch seconds in `x-rate-limit-reset`). */
export function xResetAt(headers: Headers): Date | undefined {
  const reset = headers.get("x-rate-limit-reset")?.trim();
  return reset && /^\d+$/.test(reset) ? new Date(Number(reset) * 1000) : undefined;
}

/** One authenticated call; a non-2xx answer becomes a ProviderError (401 authentication, 429 with X's reset time). */
export async function xApi<T>(account: AccountContext, path: string, init: XInit = {}): Promise<T> {
  return (await readJson<T>(await xResponse(account, path, init))) as T;
}

/** The same call, answering the 2xx Response itself (analytics reads it strictly, lib/providers/answer.ts). */
export async function xResponse(account: AccountContext, path: string, init: XInit = {}): Promise<Response> {
  return bearerFetch(account, `${xBase(account)}${path}`, init, "X", async (res) => {
    const message = problemText(await readJson<XProblem>(res));
    const err = errorFromResponse(res, { providerName: "X", message, mutating: init.mutating });
    if (res.status === 429) err.info.retryAt = xResetAt(res.headers) ?? err.info.retryAt;
    if (res.status === 403 && message && /duplicate content/i.test(message)) {
      // Not a credentials problem: X refuses a post identical to a recent one (the caller looks for it).
      return new ProviderError(`X answered 403: ${message.slice(0, 300)}`, {
        kind: "validation",
        code: "duplicate_content",
        httpStatus: 403,
        retryable: false,
      });
    }
    return err;
  });
}

/** The account's X user id: the one stored at connection, else X's answer for the token's user. */
export async function xUserId(account: AccountContext): Promise<string> {
  if (account.externalAccountId) return account.externalAccountId;
  return (await xApi<{ data: { id: string } }>(account, "/2/users/me")).data.id;
}

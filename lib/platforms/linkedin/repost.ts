import { linkedinApi, linkedinCall } from "./api";
import { authorOf } from "./adapter";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Reshares on LinkedIn through the Posts API: a post of the member's own with `reshareContext.parent` naming the
 * post reshared and empty commentary (POST /rest/posts; the reshare's URN in `x-restli-id`). Undone by deleting
 * that post (DELETE /rest/posts/{urn}); one already gone counts as undone.
 *
 * Never twice: LinkedIn has no idempotency key and resharing again makes a second post. The member's reshare
 * of the parent is looked for among its recent posts (GET /rest/posts?q=author, whose elements carry
 * `reshareContext`) before asking and again after a failed ask. That read needs r_member_social, which LinkedIn
 * grants only to approved apps; without it the repost attempt's row says whether a reshare was already asked
 * with no answer (lib/repost/execute.ts marks it RESHARE_UNCONFIRMED before asking and keeps the mark when the
 * outcome is unknown): such a retry is not asked again but ends failed, telling the person to look on LinkedIn.
 */

const RECENT_PAGE = 50;

/** The attempt row's error code while a reshare was asked for and its outcome is not known. */
export const RESHARE_UNCONFIRMED = "reshare_unconfirmed";

interface ListedPost {
  id: string;
  reshareContext?: { parent?: string };
}

export const reshareBody = (author: string, parentUrn: string) => ({
  author,
  commentary: "",
  visibility: "PUBLIC",
  distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
  lifecycleState: "PUBLISHED",
  isReshareDisabledByAuthor: false,
  reshareContext: { parent: parentUrn },
});

/** The member's reshare of `parentUrn` among its recent posts; null when none, "unreadable" without r_member_social. */
export async function findReshare(account: AccountContext, author: string, parentUrn: string): Promise<string | null | "unreadable"> {
  try {
    const out = await linkedinApi<{ elements?: ListedPost[] }>(
      account,
      `/rest/posts?q=author&author=${encodeURIComponent(author)}&count=${RECENT_PAGE}&sortBy=LAST_MODIFIED`,
    );
    return (out?.elements ?? []).find((p) => p.reshareContext?.parent === parentUrn)?.id ?? null;
  } catch (err) {
    if (err instanceof ProviderError && err.info.httpStatus === 403) return "unreadable";
    throw err;
  }
}

const unconfirmed = () =>
  new ProviderError(
    "A reshare was asked of LinkedIn without an answer, and this app may not read the member's posts (r_member_social) to see whether it was made: look on LinkedIn before resharing by hand.",
    { kind: "unknown", code: "reshare_outcome_unknown", retryable: false },
  );

/** `askedBefore`: an earlier try of this attempt asked LinkedIn and never learnt the outcome. */
export async function linkedinReshare(account: AccountContext, parentUrn: string, o: { askedBefore: boolean }): Promise<string> {
  const author = await authorOf(account);
  const existing = await findReshare(account, author, parentUrn);
  if (existing === "unreadable" && o.askedBefore) throw unconfirmed();
  if (existing && existing !== "unreadable") return existing;
  try {
    const res = await linkedinCall(account, "/rest/posts", { method: "POST", body: reshareBody(author, parentUrn), mutating: true });
    await res.body?.cancel();
    const urn = res.headers.get("x-restli-id");
    if (!urn)
      throw new ProviderError("LinkedIn answered the reshare without its id (x-restli-id).", {
        kind: "unknown",
        code: "malformed_id",
        retryable: true,
        outcomeUnknown: true,
      });
    return urn;
  } catch (err) {
    const after = await findReshare(account, author, parentUrn).catch(() => null);
    if (after && after !== "unreadable") return after;
    throw err;
  }
}

export async function linkedinUnreshare(account: AccountContext, reshareUrn: string): Promise<void> {
  try {
    const res = await linkedinCall(account, `/rest/posts/${encodeURIComponent(reshareUrn)}`, { method: "DELETE", mutating: true });
    await res.body?.cancel();
  } catch (err) {
    if (err instanceof ProviderError && err.info.httpStatus === 404) return;
    throw err;
  }
}

import { type MetaUser, startMetaGraphApi } from "../../peers/meta-graph-api";
import type { OAuthClient } from "./oauth-connect";
import type { OAuthStandIn } from "./oauth-stand-in";

/**
 * The Meta Graph double (test/peers/meta-graph-api.ts) as an OAuth stand-in by the connected account's id: a
 * connection is a new user's first Page (Facebook) or the Instagram account linked to it, while tokens belong to
 * the user, so each account remembers its owner.
 */
export async function metaStandIn(oauth: OAuthClient, account: "page" | "instagram") {
  const api = await startMetaGraphApi({ oauth });
  const owners = new Map<string, MetaUser>();
  const owner = (id: string) => owners.get(id)!;
  return {
    url: api.url,
    stop: api.stop,
    oauth: api.oauth,
    hung: api.hung,
    addAccount() {
      const { user, page } = api.addUser({ instagram: account === "instagram" });
      const id = account === "instagram" ? page.ig!.id : page.id;
      owners.set(id, user);
      return { id };
    },
    connectNext: (id) => api.connectNext(owner(id)),
    tokensOf: (id) => api.tokensOf(owner(id).id),
    expireTokensOf: (id) => api.expireTokensOf(owner(id).id),
    rateLimitNext: (n, resetAt) => api.rateLimitNext(n, resetAt),
    hangNext: (n) => api.hangNext(n),
    postsOf: (id) => api.postsOf(id),
  } satisfies OAuthStandIn<ReturnType<typeof api.postsOf>[number]>;
}

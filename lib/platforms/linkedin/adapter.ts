import { linkedinApi, linkedinCall } from "./api";
import { personUrn, postBody } from "./body";
import { uploadLinkedInImages } from "./media";
import { joinedText } from "../../providers/text";
import { LINKEDIN_TEXT_LIMIT, linkedinLength, unescapeLittleText } from "./text";
import { ProviderError, type AccountContext, type PostRef, type ProviderAdapter, type ProviderProfile } from "../../providers/types";

/**
 * A member's LinkedIn feed through the Posts API (POST /rest/posts, the new post's URN in `x-restli-id`).
 * LinkedIn has no threads: a rendition's segments are joined into ONE post (a blank line between them) when
 * the whole fits 3,000 characters; a longer one is refused when the publication is created
 * (lib/publishing/plan.ts), so a thread never reaches LinkedIn cut short. Every segment records that one post.
 *
 * Never twice: LinkedIn has no idempotency key. After an unknown outcome Herald reads the member's recent
 * posts (GET /rest/posts?q=author) and takes the post whose text is the rendition's. That read needs the
 * r_member_social permission, which LinkedIn grants only to approved apps: without it, the outcome stays
 * unknown and the rendition ends `verify_on_platform` rather than risk a second post.
 */

const RECENT_PAGE = 20;

interface LinkedInPost {
  id: string;
  commentary?: string;
}

export const linkedinPostUrl = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`;
const normalise = (text: string) => text.normalize("NFC").replace(/\s+/g, " ").trim();

export function checkLinkedInLength(text: string): void {
  const length = linkedinLength(text);
  if (length > LINKEDIN_TEXT_LIMIT) {
    throw new ProviderError(`The post is ${length} characters; LinkedIn allows ${LINKEDIN_TEXT_LIMIT} (its segments are joined into one post).`, {
      kind: "validation",
      code: "text_too_long",
      retryable: false,
    });
  }
}

/** The member's URN (`urn:li:person:{sub}`): the author of its posts and reshares. */
export async function authorOf(account: AccountContext): Promise<string> {
  if (account.externalAccountId) return personUrn(account.externalAccountId);
  return personUrn((await linkedinApi<{ sub: string }>(account, "/v2/userinfo")).sub);
}

export const linkedinAdapter: ProviderAdapter = {
  platform: "linkedin",
  textLimit: () => LINKEDIN_TEXT_LIMIT,
  measure: linkedinLength,

  async publish(account, rendition, progress) {
    const positions = rendition.segments.map((s) => s.position).sort((a, b) => a - b);
    const done = positions.map((p) => progress.posted.get(p)).find((ref) => ref);
    let ref: PostRef | undefined = done;
    if (!ref) {
      const text = joinedText(rendition.segments);
      checkLinkedInLength(text);
      const author = await authorOf(account);
      const media = rendition.segments.flatMap((s) => s.media);
      const images = media.length ? await uploadLinkedInImages(account, author, media) : [];
      const res = await linkedinCall(account, "/rest/posts", { method: "POST", body: postBody(author, text, images), mutating: true });
      await res.body?.cancel();
      const urn = res.headers.get("x-restli-id");
      if (!urn)
        throw new ProviderError("LinkedIn answered the post without its id (x-restli-id).", {
          kind: "unknown",
          code: "malformed_id",
          retryable: true,
          outcomeUnknown: true,
        });
      ref = { id: urn, url: linkedinPostUrl(urn) };
    }
    // The one post stands for every segment of the rendition.
    for (const position of positions) if (!progress.posted.has(position)) await progress.onPosted(position, ref);
    return { external_id: ref.id, external_url: ref.url };
  },

  async reconcile(account, rendition) {
    const author = await authorOf(account);
    let recent: { elements?: LinkedInPost[] };
    try {
      recent = await linkedinApi(account, `/rest/posts?q=author&author=${encodeURIComponent(author)}&count=${RECENT_PAGE}&sortBy=LAST_MODIFIED`);
    } catch (err) {
      if (err instanceof ProviderError && err.info.httpStatus === 403) {
        // Reading posts needs r_member_social; without it LinkedIn cannot say, so the outcome stays unknown.
        throw new ProviderError("LinkedIn does not let this app read the member's posts (r_member_social), so whether the post went out is unknown.", {
          kind: "unknown",
          code: "reconcile_not_permitted",
          httpStatus: 403,
          retryable: true,
          outcomeUnknown: true,
        });
      }
      throw err;
    }
    const wanted = normalise(joinedText(rendition.segments));
    const match = (recent?.elements ?? []).find((p) => normalise(unescapeLittleText(p.commentary ?? "")) === wanted);
    const found = new Map<number, PostRef>();
    if (match) for (const s of rendition.segments) found.set(s.position, { id: match.id, url: linkedinPostUrl(match.id) });
    return found;
  },

  /** OpenID Connect userinfo: `sub` is the member id the author URN is made of. */
  async readProfile(account): Promise<ProviderProfile> {
    const me = await linkedinApi<{ sub: string; name?: string; picture?: string }>(account, "/v2/userinfo");
    return {
      username: me.name ?? null,
      avatar_url: me.picture ?? null,
      external_account_id: me.sub,
      text_limit: LINKEDIN_TEXT_LIMIT,
      account_kind: "personal",
    };
  },
};

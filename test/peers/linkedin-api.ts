import { faultQueue, jsonOf, mountOAuth, newToken, startServer, tokenRegistry } from "./stand-in-kit";

/**
 * A TEST DOUBLE of LinkedIn's API for a member's posts, written from LinkedIn's public API reference
 * (learn.microsoft.com/linkedin: "Posts API" (create, the `x-restli-id` header, find by author), "Images API"
 * (initializeUpload, then PUT the bytes to the upload URL), "Little Text Format" (reserved characters),
 * "Sign In with LinkedIn using OpenID Connect" (GET /v2/userinfo), "API versioning" (LinkedIn-Version,
 * X-Restli-Protocol-Version) and "Rate limits"). LinkedIn cannot run here; this answers what Herald calls:
 *
 * - Every /rest call needs `LinkedIn-Version: YYYYMM` (400 without) and a bearer token (401 otherwise).
 * - GET /v2/userinfo → `{sub, name, picture, …}`.
 * - POST /rest/images?action=initializeUpload `{initializeUploadRequest: {owner}}` → `{value: {uploadUrl, image}}`;
 *   PUT <uploadUrl> stores the bytes (201).
 * - POST /rest/posts: `author` must be the token's member (`urn:li:person:{sub}`, 403 otherwise); `commentary`
 *   must escape little text's reserved characters (an unescaped one → 422, where LinkedIn would refuse or cut
 *   the text) and show at most 3,000 characters; `content.media.id` / `content.multiImage.images[].id` must be
 *   uploaded images → 201, empty body, the post's URN in `x-restli-id`.
 * - A reshare ("Posts API", Reshare Post): POST /rest/posts with `reshareContext: {parent: <post URN>}` and empty
 *   commentary; the parent must exist (404 otherwise) and allow resharing (`isReshareDisabledByAuthor: false`,
 *   403 otherwise); the stored post's `reshareContext` is `{parent, root}` (root: the original of a chain).
 *   LinkedIn does not refuse a second reshare of the same post: it is another post.
 * - GET /rest/posts?q=author&author=<urn> (newest first, `count`, reshares with their `reshareContext`): needs
 *   r_member_social, which LinkedIn grants only to approved apps; a member added with `readPosts: false` gets
 *   403 ACCESS_DENIED, as without it.
 * - DELETE /rest/posts/{encoded URN}: the author's own post → 204; an unknown one → 404.
 *
 * - With `oauth`, LinkedIn's OAuth 2.0 endpoints at LinkedIn's paths (GET /oauth/v2/authorization, POST
 *   /oauth/v2/accessToken, the client's id and secret in the form), served by test/peers/oauth-server.ts; refresh
 *   tokens are issued, as LinkedIn does for apps it enables programmatic refresh tokens for.
 *
 * Faults (test/peers/stand-in-kit.ts) apply to POST /rest/posts. LinkedIn documents no rate-limit reset
 * header (its daily limits reset at midnight UTC); `rateLimitNext` answers 429 with a standard Retry-After.
 */

export interface LinkedInMember {
  sub: string;
  name: string;
  readPosts: boolean;
}

export interface LinkedInStoredPost {
  urn: string;
  author: string;
  /** As sent (escaped little text). */
  commentary: string;
  /** As shown on LinkedIn. */
  text: string;
  images: { urn: string; bytes: Uint8Array; altText: string | null }[];
  reshareContext: { parent: string; root: string } | null;
  reshareDisabled: boolean;
  createdAt: number;
}

const RESERVED_UNESCAPED = /(?<!\\)(?:\\\\)*[|{}@[\]()<>#*_~]/;
const unescapeText = (s: string) => s.replace(/\\([\\|{}@[\]()<>#*_~])/g, "$1");

export async function startLinkedInApi(opts: { oauth?: { clientId: string; clientSecret: string } } = {}) {
  const members: LinkedInMember[] = [];
  const posts: LinkedInStoredPost[] = [];
  const images = new Map<string, { owner: string; bytes: Uint8Array | null }>();
  const postRequests: { headers: Record<string, unknown>; body: unknown }[] = [];
  /** URNs of posts deleted through DELETE /rest/posts/{urn}. */
  const deleteRequests: string[] = [];
  const tokens = tokenRegistry<LinkedInMember>();
  const faults = faultQueue();
  /** Members whose post LinkedIn stored without ever answering (hangNext). */
  const hung: string[] = [];
  const oauth = opts.oauth
    ? mountOAuth(tokens, { ...opts.oauth, paths: { authorize: "/oauth/v2/authorization", token: "/oauth/v2/accessToken" }, clientAuth: "body" })
    : null;
  let seq = 7_300_000_000_000_000_000n;
  const nextId = () => String(seq++);

  const server = await startServer(async (req, send, url) => {
    const fail = (status: number, message: string, code?: string, headers: Record<string, string> = {}) =>
      send(status, { status, message, ...(code ? { code } : {}), serviceErrorCode: status === 401 ? 65600 : 100 }, headers);
    if (oauth && (await oauth.answer(req, send))) return;
    const me = tokens.accountOf(req.headers);
    if (!me) return fail(401, "Invalid access token", "INVALID_ACCESS_TOKEN");
    const urnOf = (m: LinkedInMember) => `urn:li:person:${m.sub}`;

    if (req.method === "GET" && req.path === "/v2/userinfo")
      return send(200, {
        sub: me.sub,
        name: me.name,
        given_name: me.name,
        family_name: "",
        picture: `https://media.licdn.example/${me.sub}.jpg`,
        locale: { country: "US", language: "en" },
      });

    const upload = /^\/dms-uploads\/([^/]+)$/.exec(req.path);
    if (req.method === "PUT" && upload) {
      const image = images.get(`urn:li:image:${upload[1]}`);
      if (!image || image.owner !== urnOf(me)) return fail(404, "Upload URL not found");
      image.bytes = new Uint8Array(req.raw);
      return send(201, undefined);
    }
    if (req.path.startsWith("/rest/") && !/^\d{6}$/.test(String(req.headers["linkedin-version"] ?? "")))
      return fail(400, "A version must be present. Please specify a version by adding the LinkedIn-Version header.", "VERSION_MISSING");

    if (req.method === "POST" && req.path === "/rest/images" && req.query.get("action") === "initializeUpload") {
      const owner = jsonOf(req.raw)?.initializeUploadRequest?.owner;
      if (owner !== urnOf(me)) return fail(403, "Not enough permissions to upload for this owner", "ACCESS_DENIED");
      const id = nextId();
      images.set(`urn:li:image:${id}`, { owner, bytes: null });
      return send(200, { value: { uploadUrlExpiresAt: Date.now() + 3_600_000, uploadUrl: `${url}/dms-uploads/${id}`, image: `urn:li:image:${id}` } });
    }
    if (req.method === "POST" && req.path === "/rest/posts") {
      const body = jsonOf(req.raw);
      postRequests.push({ headers: { ...req.headers }, body });
      const fault = faults.take();
      if (fault && !fault.hang)
        return fail(fault.status, fault.status === 429 ? "Resource level throttle limit exceeded" : "Internal Server Error", undefined, fault.headers);
      if (body?.author !== urnOf(me)) return fail(403, "Not enough permissions to post as this author", "ACCESS_DENIED");
      if (req.headers["x-restli-protocol-version"] !== "2.0.0") return fail(400, "X-Restli-Protocol-Version 2.0.0 is required");
      const commentary = typeof body?.commentary === "string" ? body.commentary : "";
      if (RESERVED_UNESCAPED.test(commentary)) return fail(422, "commentary contains an unescaped reserved character", "UNPROCESSABLE_ENTITY");
      const text = unescapeText(commentary);
      if ([...new Intl.Segmenter().segment(text)].length > 3000) return fail(422, "commentary is longer than 3000 characters", "UNPROCESSABLE_ENTITY");
      const refs: { id: string; altText?: string }[] = body?.content?.media ? [body.content.media] : (body?.content?.multiImage?.images ?? []);
      if (refs.some((r) => !images.get(r.id)?.bytes)) return fail(422, "content refers to an image that was not uploaded", "UNPROCESSABLE_ENTITY");
      const parentUrn = body?.reshareContext?.parent;
      const parent = typeof parentUrn === "string" ? posts.find((p) => p.urn === parentUrn) : undefined;
      if (parentUrn !== undefined && !parent) return fail(404, "reshareContext.parent not found", "NOT_FOUND");
      if (parent?.reshareDisabled) return fail(403, "The author has disabled resharing of this post", "ACCESS_DENIED");
      if (fault?.hang && fault.afterStoring === false) return;
      const urn = `urn:li:share:${nextId()}`;
      posts.push({
        urn,
        author: body.author,
        commentary,
        text,
        images: refs.map((r) => ({ urn: r.id, bytes: images.get(r.id)!.bytes!, altText: r.altText ?? null })),
        reshareContext: parent ? { parent: parent.urn, root: parent.reshareContext?.root ?? parent.urn } : null,
        reshareDisabled: body?.isReshareDisabledByAuthor === true,
        createdAt: Date.now(),
      });
      if (fault?.hang) return void hung.push(me.sub);
      return send(201, undefined, { "x-restli-id": urn, "x-linkedin-id": urn });
    }
    if (req.method === "GET" && req.path === "/rest/posts" && req.query.get("q") === "author") {
      if (!me.readPosts) return fail(403, "Not enough permissions to access: partnerApiPostsExternal.FINDER-author", "ACCESS_DENIED");
      const author = req.query.get("author");
      if (author !== urnOf(me)) return fail(403, "Not enough permissions to read this author's posts", "ACCESS_DENIED");
      const count = Math.min(100, Number(req.query.get("count") ?? 10));
      const list = posts
        .filter((p) => p.author === author)
        .reverse()
        .slice(0, count);
      return send(200, {
        elements: list.map((p) => ({
          id: p.urn,
          author: p.author,
          commentary: p.commentary,
          visibility: "PUBLIC",
          lifecycleState: "PUBLISHED",
          createdAt: p.createdAt,
          ...(p.reshareContext ? { reshareContext: p.reshareContext } : {}),
        })),
        paging: { start: 0, count, links: [] },
      });
    }
    const deleted = /^\/rest\/posts\/([^/]+)$/.exec(req.path);
    if (req.method === "DELETE" && deleted) {
      const urn = decodeURIComponent(deleted[1]);
      const at = posts.findIndex((p) => p.urn === urn);
      if (at < 0) return fail(404, "Post not found", "NOT_FOUND");
      if (posts[at].author !== urnOf(me)) return fail(403, "Not enough permissions to delete this post", "ACCESS_DENIED");
      posts.splice(at, 1);
      deleteRequests.push(urn);
      return send(204, undefined);
    }
    return fail(404, `No resource for ${req.method} ${req.path}`);
  });

  return {
    url: server.url,
    stop: server.stop,
    posts,
    images,
    postRequests,
    deleteRequests,
    /** A member with a fresh token; `readPosts: false` for an app without r_member_social. */
    addAccount(name = `Member ${members.length + 1}`, o: { readPosts?: boolean } = {}) {
      const member = { sub: `m${nextId().slice(-10)}`, name, readPosts: o.readPosts ?? true };
      members.push(member);
      const token = newToken("litok");
      tokens.issue(token, member);
      return { id: member.sub, username: name, token };
    },
    issueToken(sub: string, token = newToken("litok")) {
      tokens.issue(token, members.find((m) => m.sub === sub)!);
      return token;
    },
    expireToken: tokens.expire,
    expireTokensOf: (sub: string) => tokens.expireAll(members.find((m) => m.sub === sub)!),
    oauth,
    hung,
    connectNext: (sub: string) => oauth?.connectAs(members.find((m) => m.sub === sub)!),
    tokensOf: (sub: string) => tokens.tokensOf(members.find((m) => m.sub === sub)!),
    failNext: faults.failNext,
    hangNext: faults.hangNext,
    rateLimitNext(n: number, resetAt: Date) {
      faults.failNext(n, 429, { "retry-after": String(Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000))) });
    },
    postsOf: (sub: string) => posts.filter((p) => p.author === `urn:li:person:${sub}`),
    /** The member's reshares of `parent` (each one a post of its own). */
    resharesOf: (sub: string, parent: string) => posts.filter((p) => p.author === `urn:li:person:${sub}` && p.reshareContext?.parent === parent),
  };
}

export type LinkedInApiPeer = Awaited<ReturnType<typeof startLinkedInApi>>;

import http from "node:http";
import { listenOnLoopback } from "./loopback";

/**
 * A TEST DOUBLE of a Mastodon server, written from the Mastodon API documentation (docs.joinmastodon.org:
 * statuses, accounts, instance v1/v2, notifications, media, NodeInfo). No Mastodon server can run here (it
 * needs Ruby on Rails, PostgreSQL, Redis and Sidekiq, none of which the test machines have), so this
 * plain node:http server answers the calls Herald makes the way the documentation says Mastodon does:
 *
 * - POST /api/v1/statuses: 200 with a Status; `Idempotency-Key` makes a repeat with the same key (per
 *   account) return the first status instead of posting again, as Mastodon does for about an hour;
 *   `in_reply_to_id` must name an existing status (404 otherwise); text over `max_characters` (URLs
 *   counted as 23) → 422 `{error: "Validation failed: Text character limit of N exceeded"}`.
 * - GET /api/v1/accounts/verify_credentials (with followers_count), GET /api/v1/accounts/:id/statuses (newest
 *   first; `limit` up to 40, `max_id` for older pages, a `Link: <…>; rel="next"` header while more exist;
 *   each Status with favourites_count, reblogs_count and replies_count).
 * - GET /api/v2/instance (configuration.statuses.max_characters), GET /api/v1/instance, or only v1.
 * - GET /api/v1/notifications?types[]=mention, POST /api/v2/media (multipart).
 * - GET /.well-known/nodeinfo and /nodeinfo/2.0.
 * - GET /api/v1/statuses/:id (with `reblogged` as the caller sees it), POST /api/v1/statuses/:id/reblog (200 with
 *   the new reblog status, whose `reblog` is the original; already reblogged → the same reblog again, as Mastodon
 *   does), POST /api/v1/statuses/:id/unreblog (200 with the original, `reblogged: false`), and
 *   GET /api/v2/search?type=statuses&resolve=true&q=<url> (finds a status by its url or uri; with resolve=true a
 *   status of a server this one `federate`s with is fetched and stored under a local id, as Mastodon does).
 * - 401 `{error: "The access token is invalid"}` for an unknown token.
 *
 * It can fail on purpose: `failNext(n, status, opts)` answers the next n status posts with that status
 * (a 429 carries Retry-After), `hangNext(n)` leaves the next n posts unanswered (after storing them, so a
 * client's timeout leaves the outcome unknown; or before, with `afterStoring: false`). `failReadsNext(n, status,
 * headers)` answers the next n authenticated GETs so (a 429 as Mastodon sends it: X-RateLimit-Limit,
 * X-RateLimit-Remaining 0 and X-RateLimit-Reset as an ISO 8601 time).
 */

export interface MastodonStatus {
  id: string;
  uri: string;
  url: string;
  content: string;
  text: string;
  created_at: string;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  visibility: string;
  media_attachments: { id: string; type: string; description: string | null }[];
  account: { id: string; username: string; acct: string; url: string };
  idempotency_key: string | null;
}

interface Account {
  id: string;
  username: string;
  token: string;
  bot: boolean;
}

interface Fault {
  status: number;
  retryAfter?: number;
  hang?: boolean;
  afterStoring?: boolean;
  error?: string;
}

export interface MastodonPeerOptions {
  /** null: no v2 instance endpoint (404), like Mastodon before 4.0 or some other servers. */
  maxCharacters?: number;
  v2Instance?: boolean;
  software?: string | null;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** Status text as Mastodon renders it: paragraphs, <br>, linkified URLs with the invisible/ellipsis spans. */
function render(text: string): string {
  const linkify = (s: string) =>
    escapeHtml(s).replace(/https?:\/\/[^\s<]+/g, (url) => {
      const [, scheme, rest] = /^(https?:\/\/)(.*)$/.exec(url)!;
      return `<a href="${url}" rel="nofollow noopener" target="_blank"><span class="invisible">${scheme}</span><span class="ellipsis">${rest.slice(0, 30)}</span><span class="invisible">${rest.slice(30)}</span></a>`;
    });
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${p.split("\n").map(linkify).join("<br />")}</p>`)
    .join("");
}

const length = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text.replace(/https?:\/\/\S+/g, "x".repeat(23)))].length;

export async function startMastodon(opts: MastodonPeerOptions = {}) {
  const maxCharacters = opts.maxCharacters ?? 500;
  const accounts: Account[] = [];
  const statuses: MastodonStatus[] = [];
  const notifications: { id: string; type: string; created_at: string; account: Account; status: MastodonStatus; for: string }[] = [];
  const keys = new Map<string, MastodonStatus>();
  const faults: Fault[] = [];
  const readFaults: { status: number; headers: Record<string, string>; pass: number }[] = [];
  const followers = new Map<string, number>();
  const counts = new Map<string, { favourites: number; reblogs: number }>();
  const postRequests: { headers: http.IncomingHttpHeaders; body: any }[] = [];
  /** Reblogs by (account id, original status id) → the reblog status's id. */
  const reblogs = new Map<string, string>();
  const reblogRequests: { accountId: string; statusId: string; action: "reblog" | "unreblog" }[] = [];
  const remotes: { statuses: MastodonStatus[] }[] = [];
  let seq = 100_000;
  let url = "";

  const accountJson = (a: Account) => ({
    id: a.id,
    username: a.username,
    acct: a.username,
    display_name: a.username,
    bot: a.bot,
    group: false,
    avatar: `${url}/avatars/${a.id}.png`,
    url: `${url}/@${a.username}`,
    followers_count: followers.get(a.id) ?? 0,
    following_count: 0,
    statuses_count: statuses.filter((s) => s.account.id === a.id).length,
  });

  function newStatus(author: Account, text: string, inReplyTo: MastodonStatus | null, key: string | null, media: string[] = []): MastodonStatus {
    const id = String(seq++);
    const status: MastodonStatus = {
      id,
      uri: `${url}/users/${author.username}/statuses/${id}`,
      url: `${url}/@${author.username}/${id}`,
      content: render(text),
      text,
      created_at: new Date().toISOString(),
      in_reply_to_id: inReplyTo?.id ?? null,
      in_reply_to_account_id: inReplyTo ? inReplyTo.account.id : null,
      visibility: "public",
      media_attachments: media.map((m) => ({ id: m, type: "image", description: null })),
      account: { id: author.id, username: author.username, acct: author.username, url: `${url}/@${author.username}` },
      idempotency_key: key,
    };
    statuses.push(status);
    return status;
  }

  const reblogCount = (id: string) => [...reblogs.keys()].filter((k) => k.endsWith(`:${id}`)).length;
  const publicStatus = ({ text: _t, idempotency_key: _k, ...s }: MastodonStatus) => ({
    ...s,
    favourites_count: counts.get(s.id)?.favourites ?? 0,
    reblogs_count: (counts.get(s.id)?.reblogs ?? 0) + reblogCount(s.id),
    replies_count: statuses.filter((r) => r.in_reply_to_id === s.id).length,
    reblog: null,
  });
  /** A status as one account sees it: with whether that account reblogged it. */
  const viewedStatus = (s: MastodonStatus, viewerId: string) => ({ ...publicStatus(s), reblogged: reblogs.has(`${viewerId}:${s.id}`) });

  async function readBody(req: http.IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      res.end(JSON.stringify(body));
    };
    const target = new URL(req.url ?? "/", url);
    const path = target.pathname;
    const raw = await readBody(req);

    if (req.method === "GET" && path === "/.well-known/nodeinfo") {
      if (opts.software === null) return send(404, { error: "Not Found" });
      return send(200, { links: [{ rel: "http://nodeinfo.diaspora.software/ns/schema/2.0", href: `${url}/nodeinfo/2.0` }] });
    }
    if (req.method === "GET" && path === "/nodeinfo/2.0")
      return send(200, { version: "2.0", software: { name: opts.software ?? "mastodon", version: "4.3.0" }, protocols: ["activitypub"] });
    if (req.method === "GET" && path === "/api/v2/instance") {
      if (opts.v2Instance === false) return send(404, { error: "Record not found" });
      return send(200, {
        domain: new URL(url).host,
        title: "Test double",
        version: "4.3.0",
        configuration: { statuses: { max_characters: maxCharacters, max_media_attachments: 4, characters_reserved_per_url: 23 } },
      });
    }
    if (req.method === "GET" && path === "/api/v1/instance") {
      return send(200, { uri: new URL(url).host, title: "Test double", version: "4.3.0", configuration: { statuses: { max_characters: maxCharacters } } });
    }

    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const me = accounts.find((a) => a.token === token);
    if (!me) return send(401, { error: "The access token is invalid" });
    if (req.method === "GET" && readFaults.length > 0 && readFaults[0].pass-- <= 0) {
      const fault = readFaults.shift()!;
      return send(fault.status, { error: fault.status === 429 ? "Too many requests" : "Something went wrong" }, fault.headers);
    }

    if (req.method === "GET" && path === "/api/v1/accounts/verify_credentials") return send(200, accountJson(me));
    const accountStatuses = /^\/api\/v1\/accounts\/([^/]+)\/statuses$/.exec(path);
    if (req.method === "GET" && accountStatuses) {
      const limit = Math.min(40, Number(target.searchParams.get("limit") ?? 20));
      const maxId = target.searchParams.get("max_id");
      const older = statuses.filter((s) => s.account.id === accountStatuses[1] && (!maxId || BigInt(s.id) < BigInt(maxId))).reverse();
      const list = older.slice(0, limit);
      const headers: Record<string, string> = older.length > limit ? { link: `<${url}${path}?limit=${limit}&max_id=${list.at(-1)!.id}>; rel="next"` } : {};
      return send(200, list.map(publicStatus), headers);
    }
    if (req.method === "GET" && path === "/api/v1/notifications") {
      const types = target.searchParams.getAll("types[]");
      const list = notifications
        .filter((n) => n.for === me.id && (types.length === 0 || types.includes(n.type)))
        .reverse()
        .slice(0, Number(target.searchParams.get("limit") ?? 40));
      return send(
        200,
        list.map((n) => ({ id: n.id, type: n.type, created_at: n.created_at, account: accountJson(n.account), status: publicStatus(n.status) })),
      );
    }
    const statusAction = /^\/api\/v1\/statuses\/([^/]+)(?:\/(reblog|unreblog))?$/.exec(path);
    if (statusAction) {
      const original = statuses.find((s) => s.id === statusAction[1]);
      if (!original) return send(404, { error: "Record not found" });
      const key = `${me.id}:${original.id}`;
      if (req.method === "GET" && !statusAction[2]) return send(200, viewedStatus(original, me.id));
      if (req.method === "POST" && statusAction[2] === "reblog") {
        reblogRequests.push({ accountId: me.id, statusId: original.id, action: "reblog" });
        const existing = reblogs.get(key);
        const id = existing ?? String(seq++);
        reblogs.set(key, id);
        return send(200, {
          id,
          uri: `${url}/users/${me.username}/statuses/${id}/activity`,
          url: null,
          created_at: new Date().toISOString(),
          account: accountJson(me),
          reblogged: true,
          reblog: viewedStatus(original, me.id),
        });
      }
      if (req.method === "POST" && statusAction[2] === "unreblog") {
        reblogRequests.push({ accountId: me.id, statusId: original.id, action: "unreblog" });
        reblogs.delete(key);
        return send(200, viewedStatus(original, me.id));
      }
    }
    if (req.method === "GET" && path === "/api/v2/search") {
      const q = target.searchParams.get("q") ?? "";
      let found = statuses.filter((s) => s.url === q || s.uri === q);
      if (found.length === 0 && target.searchParams.get("resolve") === "true") {
        const remote = remotes.flatMap((r) => r.statuses).find((s) => s.url === q || s.uri === q);
        if (remote) {
          const copy = { ...remote, id: String(seq++) };
          statuses.push(copy);
          found = [copy];
        }
      }
      return send(200, { accounts: [], statuses: found.map((s) => viewedStatus(s, me.id)), hashtags: [] });
    }
    if (req.method === "POST" && path === "/api/v2/media") {
      if (!String(req.headers["content-type"]).startsWith("multipart/form-data")) return send(422, { error: "Validation failed: File can't be blank" });
      return send(200, { id: String(seq++), type: "image", url: `${url}/media/${seq}`, description: null });
    }
    if (req.method === "POST" && path === "/api/v1/statuses") {
      let body: any;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return send(400, { error: "Invalid JSON" });
      }
      postRequests.push({ headers: req.headers, body });
      const key = typeof req.headers["idempotency-key"] === "string" ? `${me.id}:${req.headers["idempotency-key"]}` : null;
      const fault = faults.shift();
      if (fault && !fault.hang) {
        return send(
          fault.status,
          { error: fault.error ?? (fault.status === 429 ? "Too many requests" : "Something went wrong") },
          fault.retryAfter !== undefined ? { "retry-after": String(fault.retryAfter) } : {},
        );
      }
      const replay = key ? keys.get(key) : undefined;
      if (replay) return send(200, publicStatus(replay));
      const text = typeof body.status === "string" ? body.status : "";
      if (!text.trim() && !(body.media_ids?.length > 0)) return send(422, { error: "Validation failed: Text can't be blank" });
      if (length(text) > maxCharacters) return send(422, { error: `Validation failed: Text character limit of ${maxCharacters} exceeded` });
      const parent = body.in_reply_to_id ? statuses.find((s) => s.id === String(body.in_reply_to_id)) : null;
      if (body.in_reply_to_id && !parent) return send(404, { error: "Record not found" });
      if (fault?.hang && fault.afterStoring === false) return; // never answers, nothing stored
      const status = newStatus(me, text, parent ?? null, key, body.media_ids ?? []);
      if (key) keys.set(key, status);
      if (fault?.hang) return; // stored, but the answer never comes
      return send(200, publicStatus(status));
    }
    send(404, { error: "Record not found" });
  });
  const listening = await listenOnLoopback(server);
  url = `${listening.url}`;

  return {
    url,
    statuses,
    postRequests,
    reblogRequests,
    /** Whether `accountId` has reblogged `statusId` (a reblog made outside Herald, or whose answer was lost). */
    isReblogged: (accountId: string, statusId: string) => reblogs.has(`${accountId}:${statusId}`),
    /** Statuses of `other` become resolvable here by URL (search with resolve=true), as across federated servers. */
    federate(other: { statuses: MastodonStatus[] }) {
      remotes.push(other);
    },
    reblogAs(accountId: string, statusId: string) {
      reblogs.set(`${accountId}:${statusId}`, String(seq++));
    },
    /** A new account with a fresh access token. */
    addAccount(username = `user${seq}`, o: { bot?: boolean } = {}) {
      const account: Account = { id: String(seq++), username, token: `tok_${Math.random().toString(36).slice(2)}${seq}`, bot: o.bot ?? false };
      accounts.push(account);
      return { id: account.id, username, token: account.token };
    },
    /** Another account mentions (or replies to) `target`: a status plus a mention notification. */
    mention(fromId: string, targetId: string, text: string, inReplyToId?: string) {
      const from = accounts.find((a) => a.id === fromId)!;
      const target = accounts.find((a) => a.id === targetId)!;
      const parent = inReplyToId ? (statuses.find((s) => s.id === inReplyToId) ?? null) : null;
      const status = newStatus(from, `@${target.username} ${text}`, parent, null);
      notifications.push({ id: String(seq++), type: "mention", created_at: status.created_at, account: from, status, for: target.id });
      return status;
    },
    /** A status written outside Herald (or at a given time). */
    addStatus(accountId: string, text: string, createdAt?: Date) {
      const status = newStatus(accounts.find((a) => a.id === accountId)!, text, null, null);
      if (createdAt) status.created_at = createdAt.toISOString();
      return status;
    },
    setFollowers(accountId: string, n: number) {
      followers.set(accountId, n);
    },
    setCounts(statusId: string, c: { favourites: number; reblogs: number }) {
      counts.set(statusId, c);
    },
    /** The next n authenticated GETs fail with `status` (after letting `pass` through: a failure mid-run). */
    failReadsNext(n: number, status: number, headers: Record<string, string> = {}, pass = 0) {
      for (let i = 0; i < n; i++) readFaults.push({ status, headers, pass: i === 0 ? pass : 0 });
    },
    failNext(n: number, status: number, o: { retryAfter?: number; error?: string } = {}) {
      for (let i = 0; i < n; i++) faults.push({ status, ...o });
    },
    hangNext(n: number, o: { afterStoring?: boolean } = {}) {
      for (let i = 0; i < n; i++) faults.push({ status: 0, hang: true, afterStoring: o.afterStoring ?? true });
    },
    statusesOf: (accountId: string) => statuses.filter((s) => s.account.id === accountId),
    async stop() {
      await listening.stop();
    },
  };
}

export type MastodonPeer = Awaited<ReturnType<typeof startMastodon>>;

import { checkOutboundUrl, normaliseInstanceUrl } from "../../net/outbound-url";
import { malformed } from "../../providers/answer";
import { errorFromResponse, providerFetch, readJson } from "../../providers/http";
import { digest, hex } from "../../providers/text";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * AT Protocol over XRPC with fetch: app-password sessions (com.atproto.server.createSession) against
 * any PDS or entryway, and the calls the adapter makes. No SDK, so it runs unchanged in Workers.
 */

export const DEFAULT_PDS = "https://bsky.social";

export interface Session {
  did: string;
  handle: string;
  accessJwt: string;
  /** Where this account's repository lives (from its DID document), else the URL logged in to. */
  pdsUrl: string;
  /** The entryway or PDS the session was created at. */
  serviceUrl: string;
}

export class XrpcError extends ProviderError {}

/**
 * Sessions are kept per isolate for a while (tokens only, no I/O objects), so a thread of ten posts
 * logs in once; an expired or revoked token is replaced by logging in again.
 */
const SESSION_TTL_MS = 30 * 60 * 1000;
const sessions = new Map<string, { session: Session; until: number }>();

export const serviceUrl = (account: Pick<AccountContext, "instanceUrl">) => normaliseInstanceUrl(account.instanceUrl || DEFAULT_PDS);

type XrpcOptions = {
  query?: Record<string, string>;
  body?: unknown;
  token?: string;
  mutating?: boolean;
  rawBody?: { bytes: Uint8Array<ArrayBuffer>; type: string };
  timeoutMs?: number;
};

/** One XRPC call. `token` adds Authorization; errors become ProviderErrors with the XRPC error name as code. */
export async function xrpc<T>(account: Pick<AccountContext, "allowPrivateUrls">, base: string, method: string, opts: XrpcOptions = {}): Promise<T> {
  return (await readJson<T>(await xrpcResponse(account, base, method, opts))) as T;
}

/** The same call, answering the 2xx Response itself (for callers that read the answer strictly, lib/providers/answer.ts). */
export async function xrpcResponse(account: Pick<AccountContext, "allowPrivateUrls">, base: string, method: string, opts: XrpcOptions = {}): Promise<Response> {
  const url = new URL(`${base}/xrpc/${method}`);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const post = opts.body !== undefined || opts.rawBody !== undefined;
  const res = await providerFetch(url.toString(), {
    method: post ? "POST" : "GET",
    headers: {
      accept: "application/json",
      "user-agent": "Herald/1",
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(opts.rawBody ? { "content-type": opts.rawBody.type } : {}),
    },
    body: opts.rawBody ? opts.rawBody.bytes : opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    allowPrivateUrls: account.allowPrivateUrls,
    mutating: opts.mutating,
    timeoutMs: opts.timeoutMs,
  });
  if (!res.ok) {
    const err = await readJson<{ error?: unknown; message?: unknown }>(res);
    const code = typeof err?.error === "string" ? err.error.slice(0, 100) : undefined;
    const message = typeof err?.message === "string" ? err.message : code;
    const failure = errorFromResponse(res, { providerName: "The Bluesky server", code, message, mutating: opts.mutating });
    // XRPC reports expired and invalid tokens as 400; they are authentication failures all the same.
    if (code === "ExpiredToken" || code === "InvalidToken" || code === "AuthenticationRequired" || code === "AuthMissing") {
      throw new XrpcError(failure.message, { ...failure.info, kind: "authentication", retryable: false });
    }
    throw new XrpcError(failure.message, failure.info);
  }
  return res;
}

function pdsFromDidDoc(doc: unknown): string | null {
  const services = (doc as { service?: { id?: string; type?: string; serviceEndpoint?: unknown }[] })?.service;
  const pds = services?.find((s) => s.id === "#atproto_pds" || s.type === "AtprotoPersonalDataServer");
  return typeof pds?.serviceEndpoint === "string" ? normaliseInstanceUrl(pds.serviceEndpoint) : null;
}

async function cacheKey(account: AccountContext, base: string): Promise<string> {
  return `${base}|${hex(await digest(account.credentials.identifier ?? "", account.credentials.app_password ?? ""))}`;
}

export async function login(account: AccountContext, fresh = false): Promise<Session> {
  const { identifier, app_password } = account.credentials;
  if (!identifier || !app_password) {
    throw new ProviderError("The Bluesky account has no identifier or app password.", { kind: "configuration", code: "missing_credentials", retryable: false });
  }
  const base = serviceUrl(account);
  const key = await cacheKey(account, base);
  const cached = sessions.get(key);
  if (!fresh && cached && cached.until > Date.now()) return cached.session;
  const out = await xrpc<{ did: string; handle: string; accessJwt: string; didDoc?: unknown } | null>(account, base, "com.atproto.server.createSession", {
    body: { identifier, password: app_password },
  });
  // A session Herald cannot use is not cached: every later call would fail in a stranger way.
  if (typeof out?.did !== "string" || typeof out.handle !== "string" || typeof out.accessJwt !== "string" || !out.did || !out.accessJwt) {
    throw malformed("malformed_type", "com.atproto.server.createSession: the answer has no did, handle and accessJwt.");
  }
  const fromDoc = pdsFromDidDoc(out.didDoc);
  // Use the repository's own PDS when the DID document names one this server may contact.
  const pdsUrl = fromDoc && checkOutboundUrl(fromDoc, account.allowPrivateUrls).ok ? fromDoc : base;
  const session: Session = { did: out.did, handle: out.handle, accessJwt: out.accessJwt, pdsUrl, serviceUrl: base };
  sessions.set(key, { session, until: Date.now() + SESSION_TTL_MS });
  return session;
}

/** Runs `call` with a session, logging in again once if the cached token was expired or revoked. */
export async function withSession<T>(account: AccountContext, call: (s: Session) => Promise<T>): Promise<T> {
  const session = await login(account);
  try {
    return await call(session);
  } catch (err) {
    const code = (err as ProviderError)?.info?.code;
    if (err instanceof XrpcError && (code === "ExpiredToken" || code === "InvalidToken")) return call(await login(account, true));
    throw err;
  }
}

/** Forget cached sessions (tests that rotate credentials). */
export const forgetSessions = () => sessions.clear();

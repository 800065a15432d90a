/**
 * Herald's typed client: openapi-fetch over the types generated from the API's OpenAPI document (client/openapi.ts,
 * `npx tsx local/api-types.ts`). Paths, parameters, bodies and answers are checked by the compiler against the
 * document; `publishNow` retries what may not have reached the API, under one Idempotency-Key, so it publishes once.
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./openapi";

export type { components, paths } from "./openapi";
export type Schemas = components["schemas"];

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** The first wait; each next one doubles, up to `maxDelayMs` (defaults 250 ms and 8 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface HeraldClientOptions {
  /** Where the API is, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** An API token (`hld_…`), sent as `Authorization: Bearer`. */
  token?: string;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions;
}

type PublishNowBody = paths["/publications/{id}/publish-now"]["post"]["requestBody"]["content"]["application/json"];

const postPublishNow = (api: Client<paths>, id: string, body: PublishNowBody, idempotencyKey: string) =>
  api.POST("/publications/{id}/publish-now", { params: { path: { id }, header: { "idempotency-key": idempotencyKey } }, body });

export interface HeraldClient extends Client<paths> {
  /**
   * POST /publications/{id}/publish-now with one Idempotency-Key for every attempt (`idempotencyKey`, or one made for
   * this call): a network error, a 5xx, a 429 or the key's 409 `idempotency-key-in-use` (the first attempt still
   * running) is retried with exponential backoff, and the API replays the first answer instead of publishing twice.
   */
  publishNow(id: string, body: PublishNowBody, options?: { idempotencyKey?: string }): ReturnType<typeof postPublishNow>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Worth another attempt: the server failed or was busy, or the same key is still being answered (`error`: the parsed problem). */
function retryable(response: Response, error: unknown): boolean {
  if (response.status >= 500 || response.status === 429) return true;
  const type = typeof error === "object" && error !== null && "type" in error ? error.type : undefined;
  return response.status === 409 && typeof type === "string" && type.endsWith("/idempotency-key-in-use");
}

/** The wait before attempt `attempt + 1`: doubling from the base, with jitter, or the server's Retry-After when longer. */
function delayBefore(attempt: number, retry: Required<RetryOptions>, response?: Response): number {
  const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
  const retryAfter = Number(response?.headers.get("retry-after"));
  const asked = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retry.maxDelayMs, retryAfter * 1000) : 0;
  return Math.max(asked, backoff / 2 + Math.random() * (backoff / 2));
}

export function createHeraldClient(options: HeraldClientOptions): HeraldClient {
  const retry: Required<RetryOptions> = { attempts: 5, baseDelayMs: 250, maxDelayMs: 8000, ...options.retry };
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ""),
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  const publishNow: HeraldClient["publishNow"] = async (id, body, { idempotencyKey = crypto.randomUUID() } = {}) => {
    for (let attempt = 1; ; attempt++) {
      let answer: Awaited<ReturnType<typeof postPublishNow>> | undefined;
      try {
        answer = await postPublishNow(api, id, body, idempotencyKey);
      } catch (error) {
        // No answer at all (connection refused or cut): the request may or may not have arrived; the key makes it safe.
        if (attempt >= retry.attempts) throw error;
      }
      if (answer && (attempt >= retry.attempts || !retryable(answer.response, answer.error))) return answer;
      await sleep(delayBefore(attempt, retry, answer?.response));
    }
  };

  return Object.assign(api, { publishNow });
}

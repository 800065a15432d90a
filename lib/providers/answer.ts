import { readTextCapped } from "../net/read-capped";
import { MAX_PROVIDER_ANSWER_BYTES } from "./http";
import { ProviderError } from "./types";

/**
 * A provider's 2xx answer read strictly: where readJson (./http.ts) answers null for anything it cannot
 * read, this says what was wrong, as a ProviderError whose code starts `malformed_`, so a caller records
 * it (and backs off) instead of tripping over a null or storing what the database refuses.
 */

export type MalformedCode = "malformed_not_json" | "malformed_too_large" | "malformed_nul_character" | "malformed_id" | "malformed_type";

/** A broken answer may be a passing fault (a proxy's error page): worth trying again later, with backoff. */
export const malformed = (code: MalformedCode, message: string) => new ProviderError(message.slice(0, 500), { kind: "unknown", code, retryable: true });

export const isMalformed = (err: unknown): err is ProviderError => err instanceof ProviderError && err.info.code.startsWith("malformed_");

/** Whether a parsed value holds a NUL character in any string or key (Postgres text cannot store one). */
export function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (depth > 64 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((v) => hasNul(v, depth + 1));
  return Object.entries(value).some(([k, v]) => k.includes("\u0000") || hasNul(v, depth + 1));
}

/** The JSON in an answer's text (null: larger than the cap), or the malformed error saying why not. Pure. */
export function parseAnswerText(text: string | null, what: string): unknown {
  if (text === null) throw malformed("malformed_too_large", `${what}: the answer is larger than ${MAX_PROVIDER_ANSWER_BYTES} bytes.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed("malformed_not_json", `${what}: the answer is not JSON (${text.length} characters).`);
  }
  if (hasNul(value)) throw malformed("malformed_nul_character", `${what}: the answer contains NUL characters.`);
  return value;
}

/** The JSON of a 2xx answer, or a malformed ProviderError. `what` names the call in the message, never the content. */
export async function readAnswer(res: Response, what: string): Promise<unknown> {
  return parseAnswerText(await readTextCapped(res, MAX_PROVIDER_ANSWER_BYTES), what);
}

/**
 * The one way Herald writes logs: a JSON line of ids, codes, counts and sizes. Never request or job
 * content, URLs (query strings carry tokens, webhook paths carry secrets), e-mail addresses, secrets or
 * stack traces (error messages and stacks quote the input). A string field that does not look like an
 * id or a code is replaced by its length, so a careless field cannot leak what it holds.
 */
export type LogValue = string | number | boolean | null | undefined;

const SAFE_TEXT = /^[A-Za-z0-9_.:\-/]{0,120}$/;

export function safeValue(value: LogValue): LogValue {
  if (typeof value !== "string" || SAFE_TEXT.test(value)) return value;
  return `<redacted ${value.length} chars>`;
}

export function logEvent(level: "error" | "warn" | "info", msg: string, fields: Record<string, LogValue> = {}): void {
  const line: Record<string, LogValue> = { level, msg };
  for (const [key, value] of Object.entries(fields)) line[key] = safeValue(value);
  (level === "error" ? console.error : level === "warn" ? console.warn : console.info)(JSON.stringify(line));
}

const CODE = /^[A-Za-z0-9_.-]{1,60}$/;

/**
 * What a log may say about an error: its class and machine codes (Node's `ECONNREFUSED`, a Postgres
 * SQLSTATE, a provider's code), never its message.
 */
export function errorFields(err: unknown): { error: string; code?: string; sqlstate?: string } {
  const e = err as { name?: unknown; code?: unknown; info?: { code?: unknown }; cause?: { code?: unknown; name?: unknown } } | null;
  const name = typeof e?.name === "string" && CODE.test(e.name) ? e.name : typeof err;
  const codes = [e?.code, e?.info?.code, e?.cause?.code].filter((c): c is string => typeof c === "string" && CODE.test(c));
  const sqlstate = codes.find((c) => /^[0-9A-Z]{5}$/.test(c));
  const code = codes.find((c) => c !== sqlstate);
  return { error: name, ...(code ? { code } : {}), ...(sqlstate ? { sqlstate } : {}) };
}

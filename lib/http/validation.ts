import type { Hook } from "@hono/zod-openapi";
import { ApiError, type FieldError } from "./errors";

const TARGETS: Record<string, string> = { json: "body", form: "body", query: "query", param: "path", header: "header", cookie: "cookie" };

function locationOf(target: string, path: PropertyKey[]): string {
  let loc = TARGETS[target] ?? target;
  for (const part of path) loc += typeof part === "number" ? `[${part}]` : `.${String(part)}`;
  return loc;
}

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let cur = data;
  for (const part of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part];
  }
  return cur;
}

/** Fields whose values are credentials: a 422 names them but never echoes what was sent. */
const SECRET_FIELD = /(secret|password|token|credential|identifier|api_?key|private)/i;

const isSecretPath = (path: PropertyKey[]) => path.some((part) => typeof part === "string" && SECRET_FIELD.test(part));

/** Echo the offending value back, but never a huge one. */
function echo(value: unknown): unknown {
  if (typeof value === "string") return value.length > 120 ? `${value.slice(0, 120)}… (${value.length} characters)` : value;
  if (value === undefined || typeof value !== "object" || value === null) return value;
  try {
    const text = JSON.stringify(value);
    return text.length > 240 ? undefined : value;
  } catch {
    return undefined; // too deep to serialise: not worth echoing
  }
}

/** Every validation failure becomes 422 validation-error with one entry per offending field. */
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (result.success) return;
  const issues = (result.error as { issues: { path: PropertyKey[]; message: string }[] }).issues;
  const errors: FieldError[] = issues.slice(0, 50).map((issue) => {
    const value = isSecretPath(issue.path) ? undefined : echo(valueAt((result as { data?: unknown }).data, issue.path));
    return { location: locationOf(result.target, issue.path), message: issue.message, ...(value === undefined ? {} : { value }) };
  });
  throw new ApiError("validation-error", {
    detail: `${errors.length} field${errors.length === 1 ? "" : "s"} failed validation: ${errors.map((e) => e.location).join(", ")}`,
    errors,
  });
};

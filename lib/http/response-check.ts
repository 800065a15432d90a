import { z, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import { problemResponse } from "./problem-response";

/**
 * With CHECK_RESPONSES=1 (the test suite sets it), every 2xx answer is checked against what its route declares:
 * the status must be one of the route's, a JSON body must satisfy the route's zod schema, and a response
 * declared without content must have none. A mismatch replaces the answer with a 500 that names it, so a
 * presenter that drifts from its schema fails the test that called it. Off in deployments: one variable read.
 */
export function responseCheck(route: RouteConfig): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.env?.CHECK_RESPONSES !== "1" || c.res.status < 200 || c.res.status >= 300) return;
    const mismatch = await mismatchOf(route, c.res);
    if (!mismatch) return;
    const detail = `${route.method.toUpperCase()} ${route.path} answered ${c.res.status} unlike its declaration: ${mismatch}`;
    c.res = undefined;
    c.res = problemResponse(c, new ApiError("internal-error", { detail }));
  };
}

async function mismatchOf(route: RouteConfig, res: Response): Promise<string | undefined> {
  const declared = route.responses[res.status];
  if (!declared || "$ref" in declared) return "the status is not declared";
  const text = await res.clone().text();
  const content = "content" in declared ? declared.content : undefined;
  if (!content) return text.length > 0 ? "a body where none is declared" : undefined;
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim();
  const media = content[type] ?? (type.endsWith("json") ? content["application/json"] : undefined);
  if (!media) return Object.keys(content).some((t) => t.includes("*")) ? undefined : `content-type ${type || "(none)"} is not declared`;
  if (!("schema" in media) || !(media.schema instanceof z.ZodType)) return undefined; // bytes (format: binary), described not validated
  if (!type.endsWith("json")) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "the body is not JSON";
  }
  const result = media.schema.safeParse(body);
  if (result.success) {
    // zod drops members its objects do not declare: whatever the parse dropped, the schema does not describe.
    const extra = undeclaredMembers(body, result.data, "");
    return extra.length ? `undeclared member${extra.length === 1 ? "" : "s"} ${extra.slice(0, 5).join(", ")}` : undefined;
  }
  return result.error.issues
    .slice(0, 5)
    .map((issue: z.core.$ZodIssue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`)
    .join("; ");
}

/** Paths of members present in `sent` but not in `parsed` (what zod kept), at any depth. */
function undeclaredMembers(sent: unknown, parsed: unknown, at: string): string[] {
  if (Array.isArray(sent) && Array.isArray(parsed)) return sent.flatMap((item, i) => undeclaredMembers(item, parsed[i], `${at}[${i}]`));
  if (!isObject(sent) || !isObject(parsed)) return [];
  return Object.keys(sent).flatMap((key) =>
    Object.hasOwn(parsed, key) ? undeclaredMembers(sent[key], parsed[key], at ? `${at}.${key}` : key) : [at ? `${at}.${key}` : key],
  );
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

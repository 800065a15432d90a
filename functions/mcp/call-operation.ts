import type { Context, ExecutionContext } from "hono";
import type { AppEnv } from "../../lib/http/context";
import { groupBinding } from "../../lib/http/router";
import { ROUTES } from "../routes";
import { inProcessOperations } from "./in-process";

/** One HTTP operation call, as a tool makes it: the operation's method and OpenAPI path, and the caller's values. */
export interface OperationCall {
  method: string;
  /** The OpenAPI path, `/publications/{id}`. */
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
  idempotencyKey?: string;
}

interface Fetcher {
  fetch(request: Request): Promise<Response>;
}

/** `/publications/{id}` → `/publications/:id`, the route table's (Hono's) spelling. */
const honoPath = (openApiPath: string) => openApiPath.replace(/\{([^}]+)\}/g, ":$1");

/** The group whose Worker serves `METHOD /path`, from the gateway's own route table (functions/routes.ts). */
function groupOf(method: string, path: string): string {
  const key = `${method.toUpperCase()} ${honoPath(path)}`;
  const group = Object.keys(ROUTES).find((g) => ROUTES[g].includes(key));
  if (!group) throw new Error(`no group serves ${key}`);
  return group;
}

function urlOf(c: Context<AppEnv>, call: OperationCall): URL {
  const path = call.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(call.params[name] ?? ""));
  const url = new URL(path, c.req.url);
  for (const [name, value] of Object.entries(call.query)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
  }
  return url;
}

/**
 * Calls the operation as the MCP caller would over HTTP: the caller's own Authorization (so authentication, roles,
 * validation, idempotency and problem slugs are the operation's own), their client address (rate limits key on it)
 * and the Idempotency-Key given. It goes to the group's Worker through its GROUP_* service binding, as the gateway
 * sends it, or to the app of every group when this isolate serves them all (functions/mcp/in-process.ts).
 */
export async function callOperation(c: Context<AppEnv>, call: OperationCall): Promise<Response> {
  const headers = new Headers({ accept: "application/json" });
  for (const name of ["authorization", "cf-connecting-ip", "user-agent"]) {
    const value = c.req.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  if (call.idempotencyKey !== undefined) headers.set("idempotency-key", call.idempotencyKey);
  if (call.body !== undefined) headers.set("content-type", "application/json");
  const request = new Request(urlOf(c, call), {
    method: call.method.toUpperCase(),
    headers,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const name = groupBinding(groupOf(call.method, call.path));
  const binding = bindingOf(c.env ?? {}, name);
  if (binding) return binding.fetch(request);
  const local = inProcessOperations();
  if (!local) throw new Error(`no ${name} service binding and no in-process app`);
  return local(request, c.env, executionContext(c));
}

function bindingOf(env: object, name: string): Fetcher | undefined {
  const value: unknown = Reflect.get(env, name);
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "fetch") === "function" ? (value as Fetcher) : undefined;
}

function executionContext(c: Context<AppEnv>): ExecutionContext | undefined {
  try {
    return c.executionCtx;
  } catch {
    // Node tests call the app without one.
    return undefined;
  }
}

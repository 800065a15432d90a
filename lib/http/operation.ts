import type { OpenAPIHono, RouteConfig, RouteHandler, z } from "@hono/zod-openapi";
import { type Access, isPublic } from "./access";
import type { AppEnv } from "./context";
import { accessMiddleware } from "./enforce-access";
import { responseCheck } from "./response-check";

/**
 * One operation as a route file exports it: its OpenAPI route, who may call it (lib/http/access.ts) and its
 * handler. Every group registers its operations with `register`, so none is served without a declared rule.
 */
export interface Operation<R extends RouteConfig> {
  route: R;
  access: Access;
  handler: RouteHandler<R, AppEnv>;
}

/** A route the app serves with the access it declared: the method, Hono's path template and the rule. */
export interface Declared {
  method: string;
  path: string;
  access: Access;
}

const declared = new WeakMap<object, Declared[]>();

/** What `app` declared, in the order it registered (the order Hono matches in). */
export const declarations = (app: object): readonly Declared[] => declared.get(app) ?? [];

function remember(app: object, entry: Declared): void {
  const list = declared.get(app) ?? [];
  list.push(entry);
  declared.set(app, list);
}

/** `/publications/{id}` → `/publications/:id`, as @hono/zod-openapi mounts it. */
const honoPath = (openApiPath: string) => openApiPath.replace(/\{([^}]+)\}/g, ":$1");

/**
 * Serves `operation` on `app`: its access is published on the OpenAPI entry (`x-herald-access`; `security: []`
 * when public), enforced before the handler runs (lib/http/enforce-access.ts), and remembered for
 * authentication (lib/http/auth.ts reads it through an AccessIndex).
 */
export function register<R extends RouteConfig>(app: OpenAPIHono<AppEnv>, operation: Operation<R>): void {
  const { route, access, handler } = operation;
  const published: R = {
    ...route,
    "x-herald-access": access,
    ...(isPublic(access) ? { security: [] } : {}),
    // The route's own middleware first (a body limit must answer before anything reads the body), then the
    // access rule, before the validators: it lets a malformed source field through to their 422.
    middleware: [...[route.middleware ?? []].flat(), accessMiddleware(route, access), responseCheck(route)],
  };
  remember(app, { method: route.method.toUpperCase(), path: honoPath(route.path), access });
  app.openapi(published, handler);
}

/** A route served outside OpenAPI (meta routes, the security page) that anyone may call: why, beside it. */
export function declarePublic(app: object, method: "GET" | "POST", path: string, reason: string): void {
  remember(app, { method, path, access: { kind: "public", reason } });
}

/**
 * The access of the route a request will reach, found before routing (authentication runs first): the first
 * declared template that matches, as Hono's router picks. A path no route declares gets undefined (and so
 * authentication, then 404).
 */
export class AccessIndex {
  private readonly byMethod = new Map<string, { pattern: RegExp; access: Access }[]>();

  add(entries: readonly Declared[]): void {
    for (const { method, path, access } of entries) {
      const pattern = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+")}$`);
      const list = this.byMethod.get(method) ?? [];
      list.push({ pattern, access });
      this.byMethod.set(method, list);
    }
  }

  find(method: string, path: string): Access | undefined {
    const list = this.byMethod.get(method === "HEAD" ? "GET" : method);
    return list?.find((entry) => entry.pattern.test(path))?.access;
  }
}

type JsonSchemaOf<T> = T extends { content: { "application/json": { schema: infer S } } } ? (S extends z.ZodType ? S : never) : never;

/** The JSON body a route accepts, as a caller writes it (defaults still optional), from its exported `route`. */
export type RequestBody<R extends RouteConfig> = R["request"] extends { body: infer B } ? z.input<JsonSchemaOf<B>> : never;

/** The JSON answer a route gives with `status`, from its exported `route`. */
export type ResponseBody<R extends RouteConfig, Status extends keyof R["responses"]> = z.output<JsonSchemaOf<R["responses"][Status]>>;

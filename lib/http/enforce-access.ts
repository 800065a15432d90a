import { z, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { Role } from "../../db/schema";
import type { Access, Scope, WorkspaceSource } from "./access";
import { currentUser, db, type AppEnv } from "./context";
import { ApiError, notFound } from "./errors";
import { loadScoped, scopedWhat, type ScopedKind, type ScopedRows } from "./scoped-resources";
import { checkRole, requireReadRole } from "./workspace-guard";
import type { Queryable } from "../db/client";

/**
 * The raw value of `field` where the rule's source says, or undefined when it is absent, repeated or not a
 * string. The validators that follow read the same parsed body.
 */
async function rawSourceValue(c: Context<AppEnv>, source: WorkspaceSource): Promise<string | undefined> {
  const { field } = source;
  if (source.in === "param") return c.req.param(field);
  if (source.in === "query") {
    const values = c.req.queries(field);
    return values?.length === 1 ? values[0] : undefined;
  }
  try {
    // Hono keeps the parsed body (and the form validator reads the same cached FormData).
    if (source.in === "form") {
      const value = (await c.req.formData()).getAll(field);
      return value.length === 1 && typeof value[0] === "string" ? value[0] : undefined;
    }
    const body: unknown = await c.req.json();
    const value = body && typeof body === "object" && field in body ? (body as Record<string, unknown>)[field] : undefined;
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined; // unreadable: the validators answer it
  }
}

const shapeOf = (schema: unknown) => (schema instanceof z.ZodObject ? schema.shape : undefined);

/** The route's own schema for the rule's source field: a rule naming a field its route does not declare is a bug, caught at registration. */
function sourceSchema(route: RouteConfig, source: WorkspaceSource): z.ZodType {
  const request = route.request;
  const media = request?.body?.content?.[source.in === "json" ? "application/json" : "multipart/form-data"];
  const schema =
    source.in === "param"
      ? shapeOf(request?.params)?.[source.field]
      : source.in === "query"
        ? shapeOf(request?.query)?.[source.field]
        : shapeOf(media && "schema" in media ? media.schema : undefined)?.[source.field];
  if (!(schema instanceof z.ZodType))
    throw new Error(`${route.method} ${route.path}: access rule names ${source.in}.${source.field}, which the route does not declare`);
  return schema;
}

function requireInstanceAdmin(c: Context<AppEnv>): void {
  if (!c.get("user")?.isAdmin) throw new ApiError("forbidden", { detail: "Only instance administrators may do this." });
}

/** SPEC 5: the audit listing wants an instance administrator in a browser session; a bearer token, even an administrator's, is refused. */
function requireAdminSession(c: Context<AppEnv>): void {
  if (!c.get("user")?.sessionId)
    throw new ApiError("forbidden", {
      detail: "Only an instance administrator signed in with a passkey (a browser session) may read this; API tokens may not.",
    });
  requireInstanceAdmin(c);
}

/**
 * The middleware that enforces an operation's declared access, after authentication (which established the
 * caller or answered 401) and before the validators: admin rules check the user; workspace rules load the
 * caller's role (and the resource) in one statement and answer 404 to non-members, 403 below the declared
 * role. A source field that its own schema rejects (or that is missing) is left to the validators' 422. A list
 * read beside authentication (`readBesideAuth`) is checked by its scopedRead (lib/http/scoped-read.ts) instead,
 * and answering 2xx without it is a bug this middleware reports.
 */
export function accessMiddleware(route: RouteConfig, access: Access): MiddlewareHandler<AppEnv> {
  const schema = access.kind === "workspace-role" ? sourceSchema(route, access.workspace) : undefined;
  return async (c, next) => {
    c.set("access", access);
    await enforce(c, access, schema);
    await next();
    if (access.kind === "workspace-role" && access.readBesideAuth && c.res.status < 300 && !c.get("scope")) {
      throw new Error(`${route.method} ${route.path} declared readBesideAuth but answered without reading through scopedRead`);
    }
  };
}

async function enforce(c: Context<AppEnv>, access: Access, schema: z.ZodType | undefined): Promise<void> {
  switch (access.kind) {
    case "public":
      return;
    case "signed-in":
      // Authentication has answered 401 already; this only guards a rule that some other route shadows.
      currentUser(c);
      return;
    case "instance-admin":
      return requireInstanceAdmin(c);
    case "admin-session":
      return requireAdminSession(c);
    case "workspace-role": {
      if (access.readBesideAuth) return;
      // Let through without a credential by authentication: the route checks the URL's signature.
      if (access.signedUrl && !c.get("user")) return;
      const source = access.workspace;
      const value = await rawSourceValue(c, source);
      if (value === undefined || !schema?.safeParse(value).success) return; // optional and absent, or the validators' 422
      if (!("resource" in source)) {
        c.set("scope", { workspaceId: value, role: await requireReadRole(c, value, access.min), rows: {} });
        return;
      }
      c.set("scope", await scopeOf(c, source.resource, value, access.min));
    }
  }
}

async function scopeOf<K extends ScopedKind>(c: Context<AppEnv>, kind: K, id: string, min: Role): Promise<Scope> {
  const found = await loadScoped(db(c), kind, id, currentUser(c).id);
  if (!found) throw notFound(scopedWhat(kind));
  const role = checkRole(found.role, min, scopedWhat(kind));
  const rows: Partial<ScopedRows> = {};
  rows[kind] = found.row;
  return { workspaceId: found.workspaceId, role, rows };
}

/** What the route's declared rule established (workspace and role); only for workspace-scoped operations. */
export function scope(c: Context<AppEnv>): Scope {
  const established = c.get("scope");
  if (!established) throw new Error("scope read by a route without a workspace access rule");
  return established;
}

/** The `kind` resource the route's rule loaded (from its path or body), with the caller's access checked. */
export function scopedResource<K extends ScopedKind>(c: Context<AppEnv>, kind: K): ScopedRows[K] {
  const row = scope(c).rows[kind];
  if (!row) throw new Error(`route's access rule is not scoped by a ${kind}`);
  return row;
}

/**
 * The scoped resource read again inside `tx` and locked for the rest of it, with the caller's role checked again
 * in the same statement (the resource may have gone, or the caller's membership changed, since the rule ran).
 */
export async function lockScopedResource<K extends ScopedKind>(c: Context<AppEnv>, tx: Queryable, kind: K): Promise<ScopedRows[K]> {
  const { id } = scopedResource(c, kind);
  const access = c.get("access");
  const found = await loadScoped(tx, kind, id, currentUser(c).id, true);
  if (!found) throw notFound(scopedWhat(kind));
  if (access?.kind === "workspace-role") checkRole(found.role, access.min, scopedWhat(kind));
  return found.row;
}

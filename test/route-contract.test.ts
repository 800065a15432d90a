/**
 * The shared route contract (issue 24, item 2, first version): one set of checks applied to every operation
 * of the OpenAPI document, read in-process, so a new route gets them without anyone remembering.
 *
 * - 401 problem+json without credentials, for every operation not listed in PUBLIC below;
 * - a malformed path id (too long, a NUL byte, broken percent-encoding) with a valid token → the one 4xx
 *   problem+json the API gives for it on every operation, never a 5xx;
 * - an unknown, well-formed id with a valid token → 404 problem+json (never 403, never a 5xx).
 *
 * - every operation declares who may call it (`x-herald-access`, lib/http/access.ts), public exactly as listed;
 * - a workspace-scoped operation aimed at another workspace (its workspace id, or a resource of that kind in it)
 *   → 404, never 403; a member one role below the declared minimum → 403; an instance-admin operation called
 *   by a non-administrator → 403, an admin-session one called with a token → 403;
 * - a JSON body of the wrong shape, or with one required member of the wrong type → 422 naming it.
 *
 * Every 2xx answer of the whole suite is checked against its declared schema by the app itself in tests
 * (CHECK_RESPONSES, lib/http/response-check.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../db/schema";
import { ROUTES } from "../functions/routes";
import type { Access } from "../lib/http/access";
import type { ScopedKind } from "../lib/http/scoped-resources";
import { newId } from "../lib/ids";
import { api, expectProblem, newUser, newWorkspace, slugOf } from "./helpers/harness";
import { scopedFixtures } from "./helpers/scoped-fixtures";

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  name: string;
  op: Schema;
}

const docResponse = await api("GET", "/openapi.json");
if (docResponse.status !== 200) throw new Error(`GET /openapi.json answered ${docResponse.status}: ${docResponse.text}`);
const doc: Schema = docResponse.body;

const OPERATIONS: Operation[] = Object.entries<Schema>(doc.paths).flatMap(([path, item]) =>
  Object.entries<Schema>(item)
    .filter(([method]) => ["get", "put", "post", "patch", "delete"].includes(method))
    .map(([method, op]) => ({ method: method.toUpperCase(), path, name: `${method.toUpperCase()} ${path}`, op })),
);

/**
 * Every operation that answers without credentials, with the reason. Anything else must answer 401
 * without a token: a route that becomes public by accident fails here. (Each route declares it with publicAccess.)
 */
const PUBLIC: Record<string, string> = {
  "GET /accounts/connect/{platform}/callback": "the platform sends the user's browser back; the single-use OAuth state authenticates it",
  "POST /auth/sessions/passkey/start": "passkey sign-in is how a person gets a session",
  "POST /auth/sessions/passkey/finish": "passkey sign-in is how a person gets a session",
  "POST /billing/webhooks/stripe": "Stripe's webhook is authenticated by its signature, not a token",
  "POST /invitations/accept": "a person invited without an account has no credential yet; the invitation's single-use token is theirs",
};

/** Served by the gateway outside the OpenAPI document, answering without credentials; the reason for each. */
const PUBLIC_OUTSIDE_DOCUMENT: Record<string, string> = {
  "GET /healthz": "health check for load balancers and monitors",
  "GET /openapi.json": "the API description",
  "GET /docs": "the API reference page",
  "GET /api/v1/schemas/Problem.json": "the JSON Schemas that answers name in $schema",
  "GET /problems/not-found": "problem type pages that answers name in type",
  "GET /account/security": "the passkey sign-in page (a person without a session must reach it)",
  "GET /account/security.js": "the passkey sign-in page's script",
  "GET /account/security.css": "the passkey sign-in page's style",
};

/** Served outside the document to signed-in callers: methods a client may try that never succeed (405). */
const REFUSED_OUTSIDE_DOCUMENT: Record<string, string> = {
  "GET /mcp": "MCP's event stream, not offered by the stateless endpoint",
  "DELETE /mcp": "MCP's session end: the stateless endpoint has no sessions",
};

const isAdminPath = (path: string) => path.startsWith("/admin/");
const pathParams = (op: Schema): Schema[] => (op.parameters ?? []).filter((p: Schema) => p.in === "path");
const fill = (path: string, value: (name: string) => string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));

const deref = (s: Schema | undefined): Schema => {
  let schema = s ?? {};
  while (schema.$ref) schema = doc.components.schemas[schema.$ref.split("/").pop()];
  return schema;
};

/** A minimal value that satisfies `schema` (required properties only), so a request passes validation and reaches its handler. */
function sample(s: Schema | undefined, depth = 0, key = ""): unknown {
  const schema = deref(s);
  if (depth > 8) return null;
  if (key === "workspace_id" && workspaceId) return workspaceId; // the caller's own workspace: only the path id is unknown
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const chosen = alternatives.map(deref).find((a: Schema) => a.type !== "null") ?? alternatives[0];
    return sample(chosen, depth + 1);
  }
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: Schema) => sample(part, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type ?? (schema.properties ? "object" : undefined)) {
    case "object":
      return Object.fromEntries((schema.required ?? []).map((key: string) => [key, sample(schema.properties?.[key], depth + 1, key)]));
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items, depth + 1));
    case "integer":
    case "number":
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case "boolean":
      return true;
    case "string":
      if (schema.format === "date-time") return new Date(Date.now() + 86_400_000).toISOString();
      if (schema.format === "uri" || schema.format === "url") return "https://example.com/";
      if (schema.format === "email") return "someone@example.com";
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return null;
  }
}

/** The operation's required query parameters, filled with minimal valid values. */
function query(op: Schema): string {
  const params = (op.parameters ?? []).filter((p: Schema) => p.in === "query" && p.required);
  const search = new URLSearchParams(params.map((p: Schema) => [p.name, String(sample(p.schema, 0, p.name))]));
  return params.length ? `?${search}` : "";
}

/**
 * Where the minimal body from the schema fails a rule the schema cannot say (checked in the handler), the body
 * that passes it, with the rule. A new route needing one shows up as a 422 in the unknown-id check.
 */
const BODY_FIXES: Record<string, (generated: Schema) => unknown> = {
  // "Give at least one of alt_text, tags, is_favorite, retention_class."
  "PATCH /media/{id}": (b) => ({ ...b, is_favorite: true }),
  // "Give at least one of name, category, document."
  "PATCH /image-editor/templates/{id}": (b) => ({ ...b, name: "Renamed" }),
  // "A set operation needs a value."
  "POST /video-projects/{id}/mutations": (b) => ({ ...b, operations: b.operations.map((o: Schema) => ({ ...o, value: 1 })) }),
  // The plan must be one the instance sells.
  "PUT /admin/users/{id}/plan-override": (b) => ({ ...b, plan_id: "pro" }),
};

/** A minimal JSON body for the operation, when it declares one. */
function body(name: string, op: Schema): unknown {
  const schema = op.requestBody?.content?.["application/json"]?.schema;
  if (!schema) return undefined;
  const generated = sample(schema) as Schema;
  return BODY_FIXES[name] ? BODY_FIXES[name](generated) : generated;
}

type User = Awaited<ReturnType<typeof newUser>>;
let member: User;
let admin: User;
let workspaceId: string | undefined;
const tokenFor = (path: string) => (isAdminPath(path) ? admin.token : member.token);

beforeAll(async () => {
  [member, admin] = await Promise.all([newUser(), newUser({ isAdmin: true })]);
  workspaceId = await newWorkspace(member);
});

describe("route table and OpenAPI document", () => {
  it("list the same operations (a route outside the document is listed, with its reason)", () => {
    const documented = new Set(OPERATIONS.map((o) => o.name));
    const routed = Object.values(ROUTES)
      .flat()
      .map((route) => route.replace(/:([A-Za-z_]+)/g, "{$1}"));
    expect(routed.filter((r) => !documented.has(r) && !(r in PUBLIC_OUTSIDE_DOCUMENT) && !(r in REFUSED_OUTSIDE_DOCUMENT))).toEqual([]);
    expect([...documented].filter((d) => !routed.includes(d))).toEqual([]);
  });

  it("declare exactly the PUBLIC operations as needing no security", () => {
    const open = OPERATIONS.filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0).map((o) => o.name);
    expect(open.sort()).toEqual(Object.keys(PUBLIC).sort());
    for (const name of Object.keys(PUBLIC))
      expect(
        OPERATIONS.map((o) => o.name),
        name,
      ).toContain(name);
  });
});

describe("without credentials", () => {
  const guarded = OPERATIONS.filter((o) => !(o.name in PUBLIC));

  it.each(guarded)("$name → 401 problem+json", async ({ method, path, name, op }) => {
    const res = await api(
      method,
      fill(path, () => newId("zzz")),
      { json: body(name, op) },
    );
    expectProblem(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate"), "a 401 names its scheme").toMatch(/^Bearer/);
  });

  it.each(Object.keys(PUBLIC_OUTSIDE_DOCUMENT))("%s answers 200 (public: listed with its reason)", async (name) => {
    const [method, path] = name.split(" ");
    const res = await api(method, path);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
  });

  it.each(Object.keys(PUBLIC))("%s is reached without a token (public: listed with its reason), and is not a 5xx", async (name) => {
    const [method, path] = name.split(" ");
    // A GET carries no body (the OAuth callback is the first public GET).
    const res = await api(method, path, method === "GET" ? {} : { json: {} });
    expect(res.status, res.text).toBeLessThan(500);
    // Reaching the handler: whatever it answers, it is not the authentication middleware's "send a token".
    if (res.status === 401) expect(res.headers.get("www-authenticate")).toBeNull();
  });
});

const withIds = OPERATIONS.filter((o) => pathParams(o.op).length > 0);

/**
 * Malformed ids and the one answer the API gives for each on every operation: beyond the declared maxLength
 * of 100 (422), a NUL byte, which Postgres text cannot hold (422), and percent-encoding that does not decode (400).
 */
const MALFORMED = [
  { label: "300 characters", value: "a".repeat(300), status: 422, slug: "validation-error" },
  { label: "a NUL byte", value: "%00", status: 422, slug: "validation-error" },
  { label: "broken percent-encoding", value: "%E0%A4%A", status: 400, slug: "bad-request" },
];

describe("a malformed path id, with a valid token", () => {
  const cases = withIds.flatMap((o) => MALFORMED.map((m) => ({ ...o, ...m })));

  it.each(cases)("$name with $label → $status problem+json, never a 5xx", async ({ method, path, name, op, value, status, slug }) => {
    const res = await api(method, `${fill(path, () => value)}${query(op)}`, { token: tokenFor(path), json: body(name, op) });
    expect(res.status, res.text).toBeLessThan(500);
    expectProblem(res, status, slug);
  });
});

describe("an unknown, well-formed id, with a valid token", () => {
  // Every operation with a path id, the ones not scoped to a workspace included: an unknown token, passkey,
  // job or user is a 404 as well (the /admin/ ones are called by an instance administrator).
  it.each(withIds)("$name → 404 problem+json (never 403, never a 5xx)", async ({ method, path, name, op }) => {
    const res = await api(method, `${fill(path, () => newId("zzz"))}${query(op)}`, { token: tokenFor(path), json: body(name, op) });
    expect(slugOf(res.body), res.text).not.toBe("validation-error");
    expectProblem(res, 404, "not-found");
  });
});

const accessOf = (o: Operation): Access | undefined => o.op["x-herald-access"];

describe("declared access", () => {
  it("every operation declares who may call it (x-herald-access)", () => {
    expect(OPERATIONS.filter((o) => !accessOf(o)).map((o) => o.name)).toEqual([]);
  });

  it("is public exactly for the PUBLIC operations, each with its reason", () => {
    const open = OPERATIONS.filter((o) => accessOf(o)?.kind === "public");
    expect(open.map((o) => o.name).sort()).toEqual(Object.keys(PUBLIC).sort());
    for (const o of open) expect(accessOf(o)).toMatchObject({ reason: expect.stringMatching(/\w{3}/) });
  });
});

const BELOW: Partial<Record<Role, Role>> = { editor: "viewer", admin: "editor", owner: "admin" };

/** Where a request's rule finds its workspace, and the workspace (and its resources) to aim it at. */
interface Target {
  workspaceId: string;
  resources: Record<ScopedKind, string>;
}

/** The operation's request with its rule's source pointing at `target`; everything else minimal and valid. */
function aimedRequest(o: Operation, target: Target): { path: string; json?: unknown; body?: FormData } {
  const access = accessOf(o);
  const source = access?.kind === "workspace-role" ? access.workspace : undefined;
  const sourceValue = source ? ("resource" in source ? target.resources[source.resource] : target.workspaceId) : undefined;
  const at = (where: string, field: string) => (source && source.in === where && source.field === field ? sourceValue : undefined);
  const path = fill(o.path, (name) => at("param", name) ?? newId("zzz"));
  const params = (o.op.parameters ?? []).filter((p: Schema) => p.in === "query" && (p.required || at("query", p.name)));
  const search = new URLSearchParams(params.map((p: Schema) => [p.name, at("query", p.name) ?? String(sample(p.schema, 0, p.name))]));
  const url = `${path}${params.length ? `?${search}` : ""}`;
  const form = o.op.requestBody?.content?.["multipart/form-data"]?.schema;
  if (form) {
    const data = new FormData();
    for (const [key, value] of Object.entries(sample(form) as Schema)) data.set(key, at("form", key) ?? String(value));
    data.set("file", new Blob([new Uint8Array([137, 80, 78, 71])], { type: "image/png" }), "fixture.png");
    return { path: url, body: data };
  }
  const json = body(o.name, o.op) as Schema | undefined;
  if (json && source?.in === "json") json[source.field] = sourceValue;
  return { path: url, json };
}

type Member = Awaited<ReturnType<typeof newUser>>;
let stranger: Member;
let lower: Record<Role, Member>;
let theirs: Target;
let ours: Target;

beforeAll(async () => {
  const [viewer, editor, adminMember, owner] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
  stranger = owner;
  lower = { viewer, editor, admin: adminMember, owner };
  const theirWorkspace = await newWorkspace(stranger, [
    { id: viewer.id, role: "viewer" },
    { id: editor.id, role: "editor" },
    { id: adminMember.id, role: "admin" },
  ]);
  theirs = { workspaceId: theirWorkspace, resources: await scopedFixtures(theirWorkspace, stranger.id) };
  ours = { workspaceId: workspaceId!, resources: await scopedFixtures(workspaceId!, member.id) };
});

const scoped = OPERATIONS.filter((o) => accessOf(o)?.kind === "workspace-role");

describe("another workspace's resource or id", () => {
  it.each(scoped)("$name → 404 problem+json (never 403)", async (o) => {
    const request = aimedRequest(o, theirs);
    const res = await api(o.method, request.path, { token: member.token, json: request.json, body: request.body });
    expectProblem(res, 404, "not-found");
  });
});

describe("a member below the declared role", () => {
  const limited = scoped.filter((o) => {
    const access = accessOf(o);
    return access?.kind === "workspace-role" && BELOW[access.min] !== undefined;
  });

  it.each(limited)("$name → 403 problem+json", async (o) => {
    const access = accessOf(o);
    if (access?.kind !== "workspace-role") throw new Error("filtered above");
    const request = aimedRequest(o, theirs);
    const caller = lower[BELOW[access.min]!];
    const res = await api(o.method, request.path, { token: caller.token, json: request.json, body: request.body });
    expectProblem(res, 403, "forbidden");
  });

  const administrative = OPERATIONS.filter((o) => accessOf(o)?.kind === "instance-admin" || accessOf(o)?.kind === "admin-session");
  it.each(administrative)("$name → 403 problem+json for a caller who is not allowed", async (o) => {
    // instance-admin: a signed-in user who is not an administrator; admin-session: an administrator's token.
    const caller = accessOf(o)?.kind === "instance-admin" ? member : admin;
    const request = aimedRequest(o, ours);
    const res = await api(o.method, `${request.path}${request.path.includes("?") ? "" : query(o.op)}`, { token: caller.token, json: request.json });
    expectProblem(res, 403, "forbidden");
  });
});

/** A value of the wrong type for `schema`'s declared type. */
function wrongTypeFor(schema: Schema): unknown {
  const resolved = deref(schema);
  const type = Array.isArray(resolved.type) ? resolved.type.find((t: string) => t !== "null") : resolved.type;
  return type === "string" ? 12345 : "not-of-the-declared-type";
}

describe("a malformed JSON body, from a caller who may call the operation", () => {
  const withBody = OPERATIONS.filter((o) => o.op.requestBody?.content?.["application/json"] && accessOf(o)?.kind !== "public");
  const callerFor = (o: Operation) => (accessOf(o)?.kind === "instance-admin" ? admin : member);

  it.each(withBody)("$name with an array for a body → 422 problem+json", async (o) => {
    const request = aimedRequest(o, ours);
    const res = await api(o.method, request.path, { token: callerFor(o).token, json: [] });
    expectProblem(res, 422, "validation-error");
  });

  const bodySchema = (o: Operation) => deref(o.op.requestBody.content["application/json"].schema);
  // Bodies with nothing required are covered by the array case above.
  const withRequired = withBody.filter((o) => (bodySchema(o).required ?? []).length > 0);

  it.each(withRequired)("$name with a required member of the wrong type → 422 naming it", async (o) => {
    const schema = bodySchema(o);
    const request = aimedRequest(o, ours);
    const member0: string = schema.required[0];
    const json = { ...(request.json as Schema), [member0]: wrongTypeFor(schema.properties[member0]) };
    const res = await api(o.method, request.path, { token: callerFor(o).token, json });
    expectProblem(res, 422, "validation-error");
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(`body.${member0}`);
  });
});

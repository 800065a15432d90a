import { Hono, type Context } from "hono";
import { publicBaseUrl } from "../env";
import { errorFields, logEvent } from "../log";
import type { WorkerAppOptions } from "./app";
import { docsResponse } from "./docs-page";
import { declaredLength, discardBody, meterBody } from "./body-meter";
import { requestBodyLimit } from "./body-limits";
import { documentInfo, usedTags } from "./document-info";
import { ApiError } from "./errors";
import { jsonSchemaFor } from "./json-schema";
import { mergeOpenApiDocuments, type OpenApiJson } from "./merge-openapi";
import { problemResponse } from "./problem-response";

/**
 * Which operation group serves what: group name → its operations as "METHOD /path" in Hono's path syntax,
 * groups in the order of functions/groups.ts. Generated from the group apps (functions/routes.ts).
 */
export type RouteTable = Readonly<Record<string, readonly string[]>>;

/** The gateway's service binding to a group's Worker: `GROUP_` and the name in upper case, `-` as `_`. */
export const groupBinding = (group: string) => `GROUP_${group.toUpperCase().replace(/-/g, "_")}`;

interface GroupFetcher {
  fetch(request: Request): Promise<Response>;
}
type RouterEnv = { Bindings: Record<string, unknown> & { PUBLIC_BASE_URL?: string } };

/**
 * Pass the request to a group's Worker and its response back, both untouched: method, URL, headers (the
 * client's cf-connecting-ip among them, which rate limits key on), the body as a stream, status,
 * Set-Cookie. `redirect: "manual"` so a redirect reaches the client instead of being followed here.
 */
async function forward(c: Context<RouterEnv>, group: string, request: Request = c.req.raw): Promise<Response> {
  const binding = c.env?.[groupBinding(group)] as GroupFetcher | undefined;
  try {
    if (!binding) throw new Error(`no ${groupBinding(group)} service binding`);
    return await binding.fetch(new Request(request, { redirect: "manual" }));
  } catch (err) {
    // The group Worker's own errors come back as responses; this is the binding itself failing.
    const requestId = crypto.randomUUID();
    logEvent("error", "group worker unreachable", { request_id: requestId, group, ...errorFields(err) });
    const res = problemResponse(c, new ApiError("bad-gateway", { detail: `The ${group} Worker did not answer (request ${requestId}).` }));
    res.headers.set("x-request-id", requestId);
    return res;
  }
}

/**
 * `forward`, with the body held to its limit (lib/http/body-limits.ts, the limit the group Workers apply) before a
 * group Worker reads any of it: a declared Content-Length over the limit is answered 413 without forwarding; a body of
 * unknown length (chunked) is counted as the group reads it and answered 413 once the count passes the limit. Before
 * any answer the rest of the body is dropped (bounded: lib/http/body-meter.ts), so the answer reaches the client.
 */
async function forwardWithinLimit(c: Context<RouterEnv>, group: string): Promise<Response> {
  const raw = c.req.raw;
  if (!raw.body) return forward(c, group);
  const { maxBytes, detail } = requestBodyLimit(
    { MAX_BODY_BYTES: c.env?.MAX_BODY_BYTES, MEDIA_MAX_BYTES: c.env?.MEDIA_MAX_BYTES },
    raw.headers.get("content-type"),
  );
  const tooLarge = () => problemResponse(c, new ApiError("payload-too-large", { detail }));
  const declared = declaredLength(raw.headers);
  if (declared !== undefined && declared > maxBytes) {
    await discardBody(raw.body.getReader());
    return tooLarge();
  }
  // workerd holds a declared body to its length; the group's own gate drops what it leaves unread.
  if (declared !== undefined) return forward(c, group);
  const metered = meterBody(raw.body, maxBytes);
  const res = await forward(c, group, new Request(raw, { body: metered.stream, duplex: "half" } as RequestInit));
  await metered.discardRest();
  if (!metered.exceeded()) return res;
  await res.body?.cancel();
  return tooLarge();
}

/**
 * The gateway: a thin router in front of the group Workers, carrying none of their code. Each operation
 * of the table goes to its group's Worker through a service binding; the OpenAPI document, the reference
 * page and the schemas named by `$schema` are served from the groups' documents merged; anything else
 * (/healthz, /problems/…, an unknown path's 404) goes to the first group, whose Worker answers it exactly
 * as the all-in-one app would.
 */
export function createRouterApp(routes: RouteTable, options: WorkerAppOptions): Hono<RouterEnv> {
  const groups = Object.keys(routes);
  const app = new Hono<RouterEnv>();

  // Fetched and merged once per isolate and base URL (normally one: PUBLIC_BASE_URL).
  const documents = new Map<string, Promise<OpenApiJson | Response>>();
  const openApi = (c: Context<RouterEnv>): Promise<OpenApiJson | Response> => {
    const base = publicBaseUrl(c.env ?? {}, c.req.url);
    let document = documents.get(base);
    if (!document) {
      document = mergedDocument(c);
      if (documents.size < 8) documents.set(base, document);
      // A failure is answered, not kept: the next request asks the groups again.
      void document.then((d) => d instanceof Response && documents.delete(base));
    }
    return document;
  };
  const mergedDocument = async (c: Context<RouterEnv>): Promise<OpenApiJson | Response> => {
    const url = new URL("/openapi.json", c.req.url);
    const answers = await Promise.all(groups.map((group) => forward(c, group, new Request(url, { headers: c.req.raw.headers }))));
    const failed = answers.find((res) => !res.ok);
    if (failed) {
      for (const res of answers) if (res !== failed) void res.body?.cancel();
      return failed;
    }
    const parts = (await Promise.all(answers.map((res) => res.json()))) as OpenApiJson[];
    const merged = mergeOpenApiDocuments(parts, documentInfo(options, publicBaseUrl(c.env ?? {}, c.req.url), String(parts[0].info.version)));
    const tags = usedTags(options, merged.paths);
    return tags.length > 0 ? { ...merged, tags } : merged;
  };
  // A group's failure (a Response instead of a document) goes back as the group gave it, a copy to each caller
  // that was waiting for the same document.
  const answerWith = async (c: Context<RouterEnv>, use: (document: OpenApiJson) => Response): Promise<Response> => {
    const document = await openApi(c);
    return document instanceof Response ? document.clone() : use(document);
  };

  app.get("/openapi.json", (c) => answerWith(c, (document) => c.json(document)));
  app.get("/docs", (c) => docsResponse(c, `${publicBaseUrl(c.env ?? {}, c.req.url)}/openapi.json`, options.title));
  app.get("/api/v1/schemas/:file", (c) =>
    answerWith(c, (document) => {
      const base = publicBaseUrl(c.env ?? {}, c.req.url);
      const name = c.req.param("file").replace(/\.json$/, "");
      const schema = jsonSchemaFor(document, name, base);
      if (!schema) return problemResponse(c, new ApiError("not-found", { detail: `No schema named ${name}.` }));
      return c.json(schema, 200, { "content-type": "application/schema+json" });
    }),
  );

  // In the groups' order, as the all-in-one app mounts them: where two templates match, the first wins.
  for (const group of groups) {
    for (const route of routes[group]) {
      const [method, path] = route.split(" ");
      app.on(method, path, (c) => forwardWithinLimit(c, group));
    }
  }
  app.all("*", (c) => forwardWithinLimit(c, groups[0]));
  return app;
}

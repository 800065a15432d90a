import type { OpenAPIHono } from "@hono/zod-openapi";
import { publicBaseUrl } from "../env";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import { mountHealthz, type QueueProbe } from "./healthz";
import { PROBLEMS, type ProblemSlug } from "./problems";
import { jsonSchemaFor } from "./json-schema";
import { docsResponse } from "./docs-page";
import { addConventionalResponses } from "./conventional-responses";
import { declarePublic } from "./operation";
import { type DocumentInfo, documentInfo, usedTags } from "./document-info";

/** The version of the API's description (info.version). */
export const API_VERSION = "1.0.0";

type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

/** What a Worker's meta routes need to know about it (createWorkerApp takes these as its options). */
export interface MetaOptions extends DocumentInfo {
  /** Given only by the entries of Workers that send jobs: /healthz then checks SQS too. */
  queueProbe?: QueueProbe;
}

export function mountMeta(app: OpenAPIHono<AppEnv>, options: MetaOptions): void {
  // Generated once per isolate and base URL (normally one: PUBLIC_BASE_URL), not per request.
  const documents = new Map<string, OpenApiDocument>();
  const openApi = (baseUrl: string) => {
    let document = documents.get(baseUrl);
    if (!document) {
      document = app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: documentInfo(options, baseUrl, API_VERSION),
        servers: [{ url: baseUrl }],
        security: [{ Bearer: [] }],
      });
      addConventionalResponses(document);
      const tags = usedTags(options, document.paths as Record<string, Record<string, unknown>>);
      if (tags.length > 0) document.tags = tags;
      if (documents.size < 8) documents.set(baseUrl, document);
    }
    return document;
  };

  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer" });

  mountHealthz(app, options.queueProbe);
  declarePublic(app, "GET", "/healthz", "says only whether this Worker and what it depends on answer");
  declarePublic(app, "GET", "/openapi.json", "the API's description is public");
  declarePublic(app, "GET", "/docs", "the reference page for the public API description");
  declarePublic(app, "GET", "/api/v1/schemas/:file", "the JSON Schemas that responses' $schema name");
  declarePublic(app, "GET", "/problems/:slug", "the problem types errors name");

  app.get("/openapi.json", (c) => c.json(openApi(publicBaseUrl(c.env, c.req.url))));

  app.get("/docs", (c) => docsResponse(c, `${publicBaseUrl(c.env, c.req.url)}/openapi.json`, options.title));

  app.get("/api/v1/schemas/:file", (c) => {
    const base = publicBaseUrl(c.env, c.req.url);
    const name = c.req.param("file").replace(/\.json$/, "");
    const schema = jsonSchemaFor(openApi(base), name, base);
    if (!schema) throw new ApiError("not-found", { detail: `No schema named ${name}.` });
    return c.json(schema, 200, { "content-type": "application/schema+json" });
  });

  app.get("/problems/:slug", (c) => {
    const slug = c.req.param("slug") as ProblemSlug;
    if (!Object.hasOwn(PROBLEMS, slug)) throw new ApiError("not-found", { detail: `No problem type ${slug}.` });
    return c.json({ type: slug, ...PROBLEMS[slug] });
  });
}

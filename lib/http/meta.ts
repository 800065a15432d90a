import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { sql } from "drizzle-orm";
import { publicBaseUrl, type Env } from "../env";
import { queueUrlVar, JOB_KINDS, type JobKind } from "../jobs/kinds";
import { sqsClient } from "../jobs/sqs";
import type { GroupApp, WorkerAppOptions } from "./app";
import { db } from "./context";
import { ApiError } from "./errors";
import { PROBLEMS, type ProblemSlug } from "./problems";
import { jsonSchemaFor } from "./json-schema";
import { docsPage } from "./docs-page";
import { addConventionalResponses } from "./conventional-responses";

type OpenApiDocument = ReturnType<GroupApp["getOpenAPI31Document"]>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms))]);
}

async function queueAnswers(env: Env): Promise<boolean> {
  const kind = (Object.keys(JOB_KINDS) as JobKind[]).find((k) => env[queueUrlVar(k)]);
  if (!kind) return true; // this Worker queues nothing
  const sqs = sqsClient(env);
  try {
    await withTimeout(sqs.send(new GetQueueAttributesCommand({ QueueUrl: env[queueUrlVar(kind)], AttributeNames: ["QueueArn"] })), 3000);
    return true;
  } catch {
    return false;
  } finally {
    sqs.destroy();
  }
}

export function mountMeta(app: GroupApp, options: WorkerAppOptions): void {
  // Generated once per isolate and base URL (normally one: PUBLIC_BASE_URL), not per request.
  const documents = new Map<string, OpenApiDocument>();
  const openApi = (baseUrl: string) => {
    let document = documents.get(baseUrl);
    if (!document) {
      document = app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: { title: options.title, version: "1.0.0", description: options.description },
        servers: [{ url: baseUrl }],
        security: [{ Bearer: [] }],
      });
      addConventionalResponses(document);
      if (documents.size < 8) documents.set(baseUrl, document);
    }
    return document;
  };

  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer" });

  app.get("/healthz", async (c) => {
    const [database, queue] = await Promise.all([
      withTimeout(db(c).execute(sql`select 1`), 3000).then(() => true, () => false),
      queueAnswers(c.env),
    ]);
    const ok = database && queue;
    return c.json(
      { status: ok ? "ok" : "unavailable", checks: { database: database ? "ok" : "unavailable", queue: queue ? "ok" : "unavailable" } },
      ok ? 200 : 503,
    );
  });

  app.get("/openapi.json", (c) => c.json(openApi(publicBaseUrl(c.env, c.req.url))));

  app.get("/docs", (c) => c.html(docsPage(`${publicBaseUrl(c.env, c.req.url)}/openapi.json`, options.title)));

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

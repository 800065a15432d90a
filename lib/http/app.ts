import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { authenticate } from "./auth";
import { drainUnreadBody, jsonBodyLimit, rejectNulInUrl, requireJsonBody } from "./body-gate";
import type { AppEnv } from "./context";
import { defer } from "./context";
import { ApiError } from "./errors";
import { mountMeta, type MetaOptions } from "./meta";
import { AccessIndex, declarations } from "./operation";
import { rateLimit } from "./rate-limit";
import { handleError, problemResponse } from "./problem-response";
import { validationHook } from "./validation";

export type GroupApp = OpenAPIHono<AppEnv>;

/** Every operation group is one of these; the defaultHook turns zod failures into 422 problems. */
export function createGroupApp(): GroupApp {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("requestId", crypto.randomUUID());
  try {
    await next();
  } finally {
    c.header("x-request-id", c.get("requestId"));
    const handle = c.get("dbHandle");
    if (handle) defer(c, handle.close());
  }
};

/** A Worker's options are those of its meta routes (title, description, /healthz's queue probe). */
export type WorkerAppOptions = MetaOptions;

/**
 * A deployable Worker: the shared conventions (request context, body limits, JSON gate, bearer auth,
 * problem+json), the meta routes (/healthz, /openapi.json, /docs, /api/v1/schemas) and the given groups.
 * functions/all-groups.ts passes every group; a per-group Worker (functions/<group>/worker.ts) passes its own.
 */
export function createWorkerApp(groups: GroupApp[], options: WorkerAppOptions): GroupApp {
  const app = createGroupApp();
  // Authentication needs the access each route declared (lib/http/operation.ts), in the order Hono matches.
  const index = new AccessIndex();
  app.use("*", drainUnreadBody, requestContext, jsonBodyLimit, authenticate(index), rateLimit, rejectNulInUrl, requireJsonBody);
  mountMeta(app, options);
  index.add(declarations(app));
  for (const group of groups) {
    app.route("/", group);
    index.add(declarations(group));
  }
  app.notFound((c) => problemResponse(c, new ApiError("not-found", { detail: `No operation at ${c.req.method} ${c.req.path}.` })));
  app.onError(handleError);
  return app;
}

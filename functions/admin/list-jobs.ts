import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { outboxJobs } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { JOB_KINDS } from "../../lib/jobs/kinds";
import { AdminJob, JOB_STATES, toAdminJob } from "./jobs-schemas";
import { instanceAdmin } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/admin/jobs",
  operationId: "listJobs",
  tags: ["admin"],
  summary: "Jobs by state and kind, newest first (instance administrators)",
  description:
    'What the queues are doing: jobs waiting, retrying or given up (`dead`), with the last error. A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`. Finished jobs are kept 7 days (dead ones 14).',
  request: {
    query: z.object({
      state: z.enum(JOB_STATES).optional().openapi({ description: "Only jobs in this state" }),
      kind: z
        .enum(Object.keys(JOB_KINDS) as [keyof typeof JOB_KINDS, ...(keyof typeof JOB_KINDS)[]])
        .optional()
        .openapi({ description: "Only jobs of this kind" }),
      limit: limitParam(50, 200),
      cursor: cursorParam,
    }),
  },
  responses: { 200: jsonResponse(z.array(AdminJob), "Jobs"), ...problems(401, 403, 422) },
});

export const access = instanceAdmin();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const page = keyset(
    c,
    [
      { column: outboxJobs.createdAt, kind: "date" },
      { column: outboxJobs.id, kind: "string" },
    ],
    "desc",
    query,
  );
  const rows = await db(c)
    .select()
    .from(outboxJobs)
    .where(and(query.state ? eq(outboxJobs.state, query.state) : undefined, query.kind ? eq(outboxJobs.kind, query.kind) : undefined, page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const items = page.answer(rows, (row) => [row.createdAt, row.id]);
  return c.json(withSchemaEach(c, AdminJob, items.map(toAdminJob)), 200);
};

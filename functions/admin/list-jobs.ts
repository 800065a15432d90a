import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, desc, eq, lt, or } from "drizzle-orm";
import { outboxJobs } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { JOB_KINDS } from "../../lib/jobs/kinds";
import { AdminJob, JOB_STATES, toAdminJob } from "./jobs-schemas";
import { instanceAdmin } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/admin/jobs",
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
  const { state, kind, limit, cursor } = c.req.valid("query");
  const after = cursor ? decodeCursor(cursor, ["date", "string"]) : null;
  const rows = await db(c)
    .select()
    .from(outboxJobs)
    .where(
      and(
        state ? eq(outboxJobs.state, state) : undefined,
        kind ? eq(outboxJobs.kind, kind) : undefined,
        after
          ? or(lt(outboxJobs.createdAt, new Date(after[0])), and(eq(outboxJobs.createdAt, new Date(after[0])), lt(outboxJobs.id, after[1] as string)))
          : undefined,
      ),
    )
    .orderBy(desc(outboxJobs.createdAt), desc(outboxJobs.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null);
  return c.json(withSchemaEach(c, AdminJob, page.map(toAdminJob)), 200);
};

import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchemaEach } from "../../lib/http/schema-ref";
import { jobMetrics } from "../../lib/jobs/metrics";
import { instanceAdmin } from "../../lib/http/access";

const count = (description: string) => z.number().int().min(0).openapi({ description });

/** CONTRACT §9: one kind's jobs by where they are. */
export const JobKindMetrics = responseObject("JobKindMetrics", {
  kind: z.string().openapi({ description: "The job kind (every kind is listed, with zeros when idle)", example: "publication.publish" }),
  pending: count("Written with the change that caused it, not yet sent to its queue (due now or scheduled for later)"),
  in_flight: count("Sent to its queue and not finished: waiting there or running"),
  retrying: count("An attempt failed and another is scheduled"),
  dead: count("Given up after every attempt (kept 14 days; see GET /admin/jobs?state=dead)"),
  oldest_pending_age_seconds: z
    .number()
    .int()
    .min(0)
    .nullable()
    .openapi({ description: "Seconds since the longest-waiting pending job came due, by the database's clock; null when none is due" }),
  done_last_hour: count("Finished in the last hour"),
});

export const route = createRoute({
  method: "get",
  path: "/admin/jobs/metrics",
  operationId: "getJobMetrics",
  tags: ["admin"],
  summary: "How many jobs of each kind wait, run, retry or died (instance administrators)",
  description: "One element per job kind, every kind listed. A bare array, as GET /admin/jobs answers.",
  responses: { 200: jsonResponse(z.array(JobKindMetrics), "Job counts per kind"), ...problems(401, 403) },
});

export const access = instanceAdmin();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  return c.json(withSchemaEach(c, JobKindMetrics, await jobMetrics(db(c))), 200);
};

import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { jobReceipts, outboxJobs } from "../../db/schema";
import { audit } from "../../lib/audit";
import { afterCommit, auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { dispatchAfterCommit } from "../../lib/jobs/dispatch";
import { IdParam } from "../../lib/schemas/common";
import { AdminJob, toAdminJob } from "./jobs-schemas";
import { instanceAdmin } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/admin/jobs/{id}/redrive",
  operationId: "redriveJob",
  tags: ["admin"],
  summary: "Run a dead job again, once its cause is fixed (instance administrators)",
  description:
    "Only a `dead` job (given up after every attempt) can be redriven: it is queued again under the same job id, with a fresh set of attempts. " +
    "Never twice: a job that completed is refused (409), and consumers still recognise the job id, so a redriven job that completes meanwhile through another delivery does not run again; " +
    "publishing resumes from the segments already posted, never posting one again. Dead-letter records of publications are not redriven here: publish the publication again.",
  request: { params: z.object({ id: IdParam }) },
  responses: { 202: jsonResponse(AdminJob, "Queued again"), ...problems(401, 403, 404, 409) },
});

export const access = instanceAdmin();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const row = await db(c).transaction(async (tx) => {
    const [job] = await tx.select().from(outboxJobs).where(eq(outboxJobs.id, id)).for("update");
    if (!job) throw notFound("job");
    if (job.deadLetter)
      throw new ApiError("not-editable", { detail: "This is a record of work given up by a publication; publish the publication again instead." });
    if (job.state !== "dead") throw new ApiError("not-editable", { detail: `Only a dead job can be redriven; this one is ${job.state}.` });
    // The receipt decides: a job that completed is never run again.
    const [receipt] = await tx.select().from(jobReceipts).where(eq(jobReceipts.jobId, id)).for("update");
    if (receipt?.state === "done") throw new ApiError("not-editable", { detail: "This job completed; it is not run again." });
    // Its "given up" receipt goes, so the consumer takes the job id again; everything it did commit stays.
    await tx.delete(jobReceipts).where(and(eq(jobReceipts.jobId, id), eq(jobReceipts.state, "failed")));
    const [updated] = await tx
      .update(outboxJobs)
      // This request now causes the job's next run: its logs carry this request's id.
      .set({
        state: "pending",
        sentAt: null,
        nextAttemptAt: sql`now()`,
        attempts: 0,
        finishedAt: null,
        updatedAt: sql`now()`,
        sendAttempts: 0,
        requestId: c.get("requestId"),
      })
      .where(eq(outboxJobs.id, id))
      .returning();
    await audit(tx, { ...auditActor(c), action: "job.redrive", targetType: "job", targetId: id, workspaceId: job.workspaceId });
    return updated;
  });
  dispatchAfterCommit(afterCommit(c), [row.id]);
  return c.json(withSchema(c, AdminJob, toAdminJob(row)), 202);
};

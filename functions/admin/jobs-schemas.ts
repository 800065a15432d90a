import { z } from "@hono/zod-openapi";
import type { outboxJobs } from "../../db/schema";
import { responseObject } from "../../lib/http/schema-ref";
import { OptionalTimestamp, Timestamp } from "../../lib/schemas/common";

export const JOB_STATES = ["pending", "queued", "retrying", "done", "dead"] as const;

/** One job as administrators see it (no payload: it may name content; ids only). */
export const AdminJob = responseObject("AdminJob", {
  id: z.string().openapi({ example: "job_0123456789abcdefghijklmn" }),
  kind: z.string().openapi({ description: "What the job does (see GET /admin/jobs `kind`)", example: "publication.publish" }),
  state: z.enum(JOB_STATES).openapi({
    description:
      "`pending`: not sent to its queue yet; `queued`: sent; `retrying`: an attempt failed and another is scheduled; `done`; `dead`: given up after every attempt (redrive it once the cause is fixed)",
  }),
  workspace_id: z.string().nullable(),
  attempts: z.number().int().openapi({ description: "Consumer attempts so far" }),
  last_error: z.string().nullable().openapi({ description: "Why the last attempt (or the last send to the queue) failed" }),
  dead_letter_record: z
    .boolean()
    .openapi({ description: "A record of work given up elsewhere (a publication's rendition), kept in the dead-letter queue; not redriven here" }),
  created_at: Timestamp,
  updated_at: Timestamp,
  sent_at: OptionalTimestamp,
  finished_at: OptionalTimestamp,
});

export function toAdminJob(row: typeof outboxJobs.$inferSelect): Omit<z.infer<typeof AdminJob>, "$schema"> {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    workspace_id: row.workspaceId,
    attempts: row.attempts,
    last_error: row.jobError ?? row.lastError,
    dead_letter_record: row.deadLetter,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    sent_at: row.sentAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

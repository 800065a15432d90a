import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import { auditEvents } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { DateTimeParam, IdParam, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";
import { adminSession } from "../../lib/http/access";

/**
 * SPEC 4.12 / CONTRACT §8: one piece of evidence. Only ids, verbs and codes are projected (never names,
 * e-mails, titles, bodies, URLs, secrets or payloads), and Herald's audit trail stores nothing else.
 */
export const AuditEvidenceItem = z
  .object({
    id: z.string(),
    occurred_at: Timestamp,
    action: z.string().openapi({ example: "passkey.add" }),
    outcome: z.enum(["success", "denied"]),
    actor_kind: z.enum(["user", "token", "session", "system"]),
    actor_id: z.string().nullable().openapi({ description: "The acting user's id (null for the system)" }),
    workspace_id: z.string().nullable(),
    target_type: z.string(),
    target_id: z.string(),
    request_id: z.string().nullable(),
  })
  .openapi("AuditEvidenceItem");

export const AuditEvidencePage = responseObject("AuditEvidencePage", {
  items: z.array(AuditEvidenceItem),
  next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next (older) page; null at the end" }),
});

export const route = createRoute({
  method: "get",
  path: "/admin/audit-evidence",
  operationId: "listAuditEvidence",
  tags: ["admin"],
  summary: "Instance audit evidence, newest first (an administrator's browser session only)",
  description:
    "Consequential actions across the instance: who (by id and how authenticated), what, on which id, with what outcome. Only an instance administrator signed in with a passkey may read it: a bearer token, even an administrator's, is refused (403).",
  request: {
    query: z.object({
      since: DateTimeParam.optional().openapi({ description: "Only evidence at or after this instant" }),
      until: DateTimeParam.optional().openapi({ description: "Only evidence before this instant" }),
      action: z
        .string()
        .min(1)
        .max(100)
        .regex(/^[a-z0-9_.]+$/, "An action name such as passkey.add")
        .optional()
        .openapi({ description: "Only this action" }),
      workspace_id: WorkspaceIdField.optional(),
      actor_id: IdParam.optional().openapi({ description: "Only actions by this user" }),
      limit: limitParam(50, 200),
      cursor: cursorParam,
    }),
  },
  responses: { 200: jsonResponse(AuditEvidencePage, "A page of evidence"), ...problems(401, 403, 422) },
});

export const access = adminSession();

/**
 * The cursor is the (occurred_at, seq) of the last item shown: occurred_at is the order people read, and seq
 * (unique, bigint, so carried as a string) breaks ties between events of the same millisecond.
 */
function positionOf(cursor: string): { occurredAt: string; seq: string } {
  const [occurredAt, seq] = decodeCursor(cursor, ["date", "string"]).map(String);
  if (!/^[1-9]\d{0,17}$/.test(seq))
    throw new ApiError("validation-error", {
      detail: "The cursor is not one this API issued; start again without it.",
      errors: [{ location: "query.cursor", message: "Invalid cursor" }],
    });
  return { occurredAt, seq };
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  if (q.since && q.until && Date.parse(q.since) >= Date.parse(q.until)) {
    throw new ApiError("validation-error", {
      detail: "`since` must come before `until`.",
      errors: [{ location: "query.until", message: "Must be after since", value: q.until }],
    });
  }
  const after = q.cursor ? positionOf(q.cursor) : null;
  const rows = await db(c)
    .select()
    .from(auditEvents)
    .where(
      and(
        q.since ? gte(auditEvents.occurredAt, new Date(q.since)) : undefined,
        q.until ? lt(auditEvents.occurredAt, new Date(q.until)) : undefined,
        q.action ? eq(auditEvents.action, q.action) : undefined,
        q.workspace_id ? eq(auditEvents.workspaceId, q.workspace_id) : undefined,
        q.actor_id ? eq(auditEvents.actorUserId, q.actor_id) : undefined,
        after ? sql`(${auditEvents.occurredAt}, ${auditEvents.seq}) < (${after.occurredAt}::timestamptz, ${after.seq}::bigint)` : undefined,
      ),
    )
    .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.seq))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  const next = rows.length > q.limit && last ? encodeCursor([last.occurredAt.toISOString(), String(last.seq)]) : null;
  setNextLink(c, next);
  return c.json(
    withSchema(c, AuditEvidencePage, {
      items: page.map((e) => ({
        id: e.id,
        occurred_at: e.occurredAt.toISOString(),
        action: e.action,
        outcome: e.outcome as "success" | "denied",
        actor_kind: e.actorKind as "user" | "token" | "session" | "system",
        actor_id: e.actorUserId,
        workspace_id: e.workspaceId,
        target_type: e.targetType,
        target_id: e.targetId,
        request_id: e.requestId,
      })),
      next_cursor: next,
    }),
    200,
  );
};

import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { inboundMessages } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { IdParam, WorkspaceIdField } from "../../lib/schemas/common";
import { Message } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/messages",
  operationId: "listMessages",
  tags: ["accounts"],
  summary: "Collected mentions and replies, newest first",
  description: 'Needs the viewer role. A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: {
    query: z.object({
      workspace_id: WorkspaceIdField,
      account_id: IdParam.optional().openapi({ description: "Only messages addressed to this connected account" }),
      limit: limitParam(50, 200),
      cursor: cursorParam,
    }),
  },
  responses: { 200: jsonResponse(z.array(Message), "The messages"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const { workspace_id, account_id } = query;
  const page = keyset(
    c,
    [
      { column: inboundMessages.sentAt, kind: "date" },
      { column: inboundMessages.id, kind: "string" },
    ],
    "desc",
    query,
  );
  // inbound_messages_workspace_idx (workspace_id, sent_at desc, id desc); with account_id, inbound_messages_account_idx.
  const rows = await db(c)
    .select()
    .from(inboundMessages)
    .where(and(eq(inboundMessages.workspaceId, workspace_id), account_id ? eq(inboundMessages.socialAccountId, account_id) : undefined, page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const messages = page.answer(rows, (m) => [m.sentAt, m.id]);
  return c.json(
    withSchemaEach(
      c,
      Message,
      messages.map((m) => ({
        id: m.id,
        workspace_id: m.workspaceId,
        account_id: m.socialAccountId,
        platform: m.platform,
        kind: m.kind,
        external_id: m.externalId,
        author_handle: m.authorHandle,
        text: m.text,
        url: m.url,
        in_reply_to_external_id: m.inReplyToExternalId,
        created_at: m.sentAt.toISOString(),
        collected_at: m.collectedAt.toISOString(),
      })),
    ),
    200,
  );
};

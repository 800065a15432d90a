import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, desc, eq, lt, or } from "drizzle-orm";
import { inboundMessages } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { requireReadRole } from "../../lib/http/workspace-guard";
import { IdParam, WorkspaceIdField } from "../../lib/schemas/common";
import { Message } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/messages",
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

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id, account_id, limit, cursor } = c.req.valid("query");
  await requireReadRole(c, workspace_id, "viewer");
  const after = cursor ? decodeCursor(cursor, ["date", "string"]) : null;
  const at = after ? new Date(after[0] as string) : null;
  // inbound_messages_workspace_idx (workspace_id, sent_at desc, id desc); with account_id, inbound_messages_account_idx.
  const rows = await db(c)
    .select()
    .from(inboundMessages)
    .where(
      and(
        eq(inboundMessages.workspaceId, workspace_id),
        account_id ? eq(inboundMessages.socialAccountId, account_id) : undefined,
        at ? or(lt(inboundMessages.sentAt, at), and(eq(inboundMessages.sentAt, at), lt(inboundMessages.id, after![1] as string))) : undefined,
      ),
    )
    .orderBy(desc(inboundMessages.sentAt), desc(inboundMessages.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.sentAt.toISOString(), last.id]) : null);
  return c.json(
    withSchemaEach(
      c,
      Message,
      page.map((m) => ({
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

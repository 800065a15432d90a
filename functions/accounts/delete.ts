import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, inArray, or, sql } from "drizzle-orm";
import { publications, renditions, socialAccounts } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { IdParam } from "../../lib/schemas/common";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "delete",
  path: "/accounts/{id}",
  operationId: "disconnectAccount",
  tags: ["accounts"],
  summary: "Disconnect a social account",
  description:
    "Needs the admin role. Refused with 409 not-editable while a publication targeting the account is scheduled or " +
    "publishing (unschedule it or remove that destination first), so nothing queued is left pointing at a missing " +
    "account. Otherwise the stored credentials are erased; an account that no rendition names is removed with its " +
    "collected messages, and one that published renditions name is kept, disconnected, for their history (no longer " +
    "listed or usable; connecting it again makes a new account).",
  request: { params: z.object({ id: IdParam.openapi({ description: "Connected account ID" }) }) },
  responses: { 204: { description: "Disconnected" }, ...problems(401, 403, 404, 409, 422) },
});

/** Publication and rendition states during which an account must stay. */
const BUSY_PUBLICATIONS = ["scheduled", "publishing"] as const;
const BUSY_RENDITIONS = ["queued", "publishing", "retrying", "reconciling"] as const;

export const access = workspaceRole("admin", resourceInPath("account"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  await db(c).transaction(async (tx) => {
    // Hold the account while deciding, so a concurrent delete waits rather than racing.
    const row = await lockScopedResource(c, tx, "account");
    const [usage] = await tx
      .select({
        total: sql<number>`count(*)::int`,
        busy: sql<number>`count(*) filter (where ${or(inArray(publications.status, [...BUSY_PUBLICATIONS]), inArray(renditions.status, [...BUSY_RENDITIONS]))})::int`,
      })
      .from(renditions)
      .innerJoin(publications, eq(publications.id, renditions.publicationId))
      .where(eq(renditions.socialAccountId, row.id)); // renditions_account_idx
    if (usage.busy > 0) {
      throw new ApiError("not-editable", {
        detail: `${usage.busy} scheduled or publishing rendition${usage.busy === 1 ? "" : "s"} target this account; unschedule those publications or remove this destination first.`,
      });
    }
    if (usage.total === 0) {
      await tx.delete(socialAccounts).where(eq(socialAccounts.id, row.id));
    } else {
      await tx
        .update(socialAccounts)
        .set({ disconnectedAt: new Date(), isActive: false, credentialsCiphertext: null, updatedAt: new Date() })
        .where(and(eq(socialAccounts.id, row.id)));
    }
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "account.disconnect", targetType: "social_account", targetId: row.id });
  });
  return c.body(null, 204);
};

import type { repostActivity, repostAttempts } from "../../db/schema";
import { newId } from "../ids";

type Attempt = typeof repostAttempts.$inferSelect;
type Status = (typeof repostActivity.$inferInsert)["status"];

/** The activity row telling what happened to an attempt, and why (GET /repost-automation/activity). */
export const activityOf = (
  a: Pick<Attempt, "workspaceId" | "policyId" | "renditionId" | "targetAccountId" | "stage">,
  action: "repost" | "unrepost",
  status: Status,
  reason: string,
  externalId: string | null = null,
): typeof repostActivity.$inferInsert => ({
  id: newId("rpa"),
  workspaceId: a.workspaceId,
  policyId: a.policyId,
  renditionId: a.renditionId,
  targetAccountId: a.targetAccountId,
  stage: a.stage,
  action,
  status,
  reason: reason.slice(0, 1000),
  externalId,
});

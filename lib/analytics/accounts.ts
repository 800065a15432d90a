import { and, eq, inArray, isNull } from "drizzle-orm";
import { socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";
import { platformSupport } from "./overview";

/** The workspace's connected accounts (not disconnected): the ones analytics collects from and shows. */
export async function workspaceAccounts(q: Queryable, workspaceId: string, onlyIds?: string[]) {
  if (onlyIds && onlyIds.length === 0) return [];
  return q
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), isNull(socialAccounts.disconnectedAt), onlyIds ? inArray(socialAccounts.id, onlyIds) : undefined))
    .orderBy(socialAccounts.createdAt, socialAccounts.id);
}

/** Accounts a collection run gathers from: active ones on a platform that offers analytics. */
export async function collectableAccounts(q: Queryable, workspaceId: string) {
  return (await workspaceAccounts(q, workspaceId)).filter((a) => a.isActive && platformSupport(a.platform).content);
}

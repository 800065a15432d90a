import { eq } from "drizzle-orm";
import { publications, type Role } from "../../db/schema";
import type { Queryable } from "../db/client";
import { notFound } from "../http/errors";
import { requireRole } from "../http/workspace-guard";
import type { PublicationRow } from "./load";

/**
 * The publication if the caller may act on it with `min` role: 404 when it does not exist or belongs
 * to a workspace the caller is not in (the same answer, so existence is never revealed); 403 when
 * the role is too low. `lock` takes the row for the rest of the transaction.
 */
export async function publicationForCaller(tx: Queryable, id: string, userId: string, min: Role, lock = false): Promise<PublicationRow> {
  const query = tx.select().from(publications).where(eq(publications.id, id)).limit(1);
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound("publication");
  await requireRole(tx, userId, row.workspaceId, min, "publication");
  return row;
}

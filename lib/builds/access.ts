import { eq } from "drizzle-orm";
import { publicationBuilds, type Role } from "../../db/schema";
import type { Queryable } from "../db/client";
import { notFound } from "../http/errors";
import { requireRole } from "../http/workspace-guard";

export type BuildRow = typeof publicationBuilds.$inferSelect;

/** The build if the caller may act on it with `min` role; 404 for a missing or foreign build (existence never revealed). */
export async function buildForCaller(q: Queryable, id: string, userId: string, min: Role, lock = false): Promise<BuildRow> {
  const query = q.select().from(publicationBuilds).where(eq(publicationBuilds.id, id)).limit(1);
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound("build");
  await requireRole(q, userId, row.workspaceId, min, "build");
  return row;
}

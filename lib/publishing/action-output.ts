import { asc, eq } from "drizzle-orm";
import { renditions } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { RenditionRow } from "./load";
import { targetKey, toDelivery } from "./serialize";

/** ActionOutputBody (SPEC 2.5) for a publication's renditions as they stand in `q`. */
export async function actionOutput(q: Queryable, publicationId: string, opts: ActionOutputOptions) {
  return actionOutputOf(await renditionsInOrder(q, publicationId), publicationId, opts);
}

interface ActionOutputOptions {
  revision: number;
  jobId: string | null;
  message: string;
}

/** The renditions ActionOutputBody lists, as a statement (to go in a batch). */
export const renditionsInOrder = (q: Queryable, publicationId: string) =>
  q.select().from(renditions).where(eq(renditions.publicationId, publicationId)).orderBy(asc(renditions.position));

/** ActionOutputBody from the renditions as read (in position order). */
export function actionOutputOf(rows: RenditionRow[], publicationId: string, opts: ActionOutputOptions) {
  return {
    publication_id: publicationId,
    revision: opts.revision,
    message: opts.message,
    job_id: opts.jobId,
    activation_publication_id: null,
    workspace_activated: false,
    renditions: rows.map((r) => ({
      id: r.id,
      platform: r.platform,
      social_account_id: r.socialAccountId,
      status: r.status,
      target_key: targetKey(r),
      delivery: toDelivery(r),
    })),
  };
}

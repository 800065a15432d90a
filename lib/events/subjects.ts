import { sql, type SQL } from "drizzle-orm";
import { publicationBuilds, publications, renditions, socialAccounts } from "../../db/schema";
import type { PublicationStatus } from "../../db/schema/publications";
import { changedNow, eventStatements } from "./emit";
import type { EventType } from "./types";

/**
 * The events of publications, renditions and builds, for the places that write those changes (lib/delivery,
 * lib/publishing, lib/builds). Their data is built by the database from the row as changed, ids, statuses and
 * titles only (never a rendition's text, never credentials), so a batch can carry them without reading first.
 */

const PUBLICATION_EVENTS: Partial<Record<PublicationStatus, EventType>> = {
  published: "publication.published",
  partially_published: "publication.partially_published",
  failed: "publication.failed",
};

/** The event of a publication reaching `status`, or undefined when that status has none (a canceled one's `draft`). */
export const publicationEventType = (status: PublicationStatus): EventType | undefined => PUBLICATION_EVENTS[status];

const p = publications;
const r = renditions;

const publicationData = (publicationId: string) => sql`(select jsonb_build_object(
    'publication_id', ${p.id}, 'title', ${p.title}, 'status', ${p.status}, 'revision', ${p.revision},
    'renditions', coalesce((select jsonb_agg(jsonb_build_object('rendition_id', ${r.id}, 'social_account_id', ${r.socialAccountId},
      'platform', ${r.platform}, 'status', ${r.status}, 'external_url', ${r.externalUrl}, 'error_code', ${r.errorCode}) order by ${r.position})
      from ${r} where ${r.publicationId} = ${p.id}), '[]'::jsonb))
  from ${p} where ${p.id} = ${publicationId})`;

/**
 * The statements of a publication's converged event, to run after the statement that moves it to `status`; with
 * `onlyIfChanged` they apply only if that statement did (a batch's conditional update). None for a status without event.
 */
export function publicationConvergedStatements(workspaceId: string, publicationId: string, status: PublicationStatus, onlyIfChanged: boolean): SQL[] {
  const type = publicationEventType(status);
  if (!type) return [];
  const when = onlyIfChanged ? changedNow(p, publicationId, status) : undefined;
  return eventStatements({ workspaceId, type, data: publicationData(publicationId), when }).statements;
}

/** `rendition.failed`, for the statements after one that may have ended the rendition `failed` (applied only if it did). */
export function renditionFailedStatements(renditionId: string): SQL[] {
  const data = sql`(select jsonb_build_object('rendition_id', ${r.id}, 'publication_id', ${r.publicationId}, 'social_account_id', ${r.socialAccountId},
      'platform', ${r.platform}, 'status', ${r.status}, 'error_code', ${r.errorCode}, 'recovery_action', ${r.recoveryAction})
    from ${r} where ${r.id} = ${renditionId})`;
  const workspaceId = sql`select ${r.workspaceId} from ${r} where ${r.id} = ${renditionId}`;
  return eventStatements({ workspaceId, type: "rendition.failed", data, when: changedNow(r, renditionId, "failed") }).statements;
}

/** `build.completed` / `build.failed`, after the statement that may have finished the build (applied only if it did). */
export function buildFinishedStatements(workspaceId: string | SQL, buildId: string, state: "completed" | "failed"): SQL[] {
  const b = publicationBuilds;
  const data = sql`(select jsonb_build_object('build_id', ${b.id}, 'state', ${b.state}, 'phase', ${b.phase}, 'publication_id', ${b.publicationId}, 'error_code', ${b.errorCode})
    from ${b} where ${b.id} = ${buildId})`;
  const when = changedNow({ id: b.id, status: b.state, updatedAt: b.updatedAt }, buildId, state);
  return eventStatements({ workspaceId, type: state === "completed" ? "build.completed" : "build.failed", data, when }).statements;
}

/**
 * `account.reconnect_required`, for the statements after the one that marks the account so (the platform refused
 * to refresh its token): applied only if that statement did, with `updated_at = now()`. In an interactive
 * transaction, `emitEvent(tx, workspaceId, "account.reconnect_required", { account_id, platform, status })` does the same.
 */
export function accountReconnectRequiredStatements(accountId: string): SQL[] {
  const a = socialAccounts;
  const data = sql`(select jsonb_build_object('account_id', ${a.id}, 'platform', ${a.platform}, 'status', ${a.status}) from ${a} where ${a.id} = ${accountId})`;
  const workspaceId = sql`select ${a.workspaceId} from ${a} where ${a.id} = ${accountId}`;
  const when = changedNow(a, accountId, "reconnect_required");
  return eventStatements({ workspaceId, type: "account.reconnect_required", data, when }).statements;
}

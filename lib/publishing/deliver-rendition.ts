import { and, eq, isNull, ne, sql } from "drizzle-orm";
import { deliveryAttempts, renditions, renditionSegments, type socialAccounts } from "../../db/schema";
import { errorFields as loggableError, logEvent } from "../log";
import type { Platform } from "../../db/schema/accounts";
import type { Database, Queryable } from "../db/client";
import type { Env } from "../env";
import { inOneTransaction, type BatchItem } from "../db/batch";
import { newId } from "../ids";
import { retryDelaySeconds } from "../jobs/consumer";
import { accountContext } from "../providers/account-context";
import { adapterFor } from "../providers/registry";
import { ProviderError, type PostRef, type RenditionToPublish } from "../providers/types";
import { deliveryMedia } from "./delivery-media";
import { claimAndStart, postedSegment, publishedOutcome, type ClaimedRendition, type DeliverySegment } from "./delivery-statements";
import { decideAfterFailure } from "./status";

/** How long a consumer holds a rendition; renewed with every segment posted. A lapsed lease means it died. */
export const LEASE_MS = 120_000;

const leaseUntil = () => new Date(Date.now() + LEASE_MS);

/** A confirmed segment and the renewed lease, committed together before anything else is sent. */
async function recordPosted(db: Database, renditionId: string, position: number, ref: PostRef): Promise<void> {
  await inOneTransaction(db, (q) => [postedSegment(renditionId, position, ref), q.update(renditions).set({ leaseUntil: leaseUntil() }).where(eq(renditions.id, renditionId))]);
}

export type DeliveryOutcome = "published" | "retrying" | "reconciling" | "failed" | "skipped";

/**
 * How a delivery commits its published outcome's statements: in a request of its own unless its job gathers
 * the outcomes of deliveries that end together into one (lib/publishing/outcome-batch.ts).
 */
export type OutcomeSender = (renditionId: string, build: (q: Queryable) => BatchItem[]) => Promise<void>;

/** A rendition claimed for one attempt, with what its delivery reads; `rendition` is undefined when another holds it or it is done. */
export interface Claim {
  renditionId: string;
  attemptId: string;
  rendition: ClaimedRendition | undefined;
  account: typeof socialAccounts.$inferSelect | undefined;
  segments: DeliverySegment[];
  publication: { id: string; mediaIds: string[] };
}

/** What claimAndStart's statements answer, in order. */
type ClaimResults = [ClaimedRendition[], unknown[], unknown[], Claim["account"][], DeliverySegment[], Claim["publication"][]];

/**
 * Claim renditions, each for its own attempt, with the attempts on record before anything is sent and what
 * each delivery reads, in one request (lib/publishing/delivery-statements.ts). Callers claim only what they
 * start delivering at once, so no lease runs while a rendition waits. Claims lock renditions in the order
 * given: callers pass them in position order, as every job does, so two jobs never wait on each other in a cycle.
 */
export async function claimRenditions(db: Database, renditionIds: readonly string[], jobId: string): Promise<Claim[]> {
  const until = leaseUntil();
  const ids = renditionIds.map((id) => ({ id, attemptId: newId("att"), jobId }));
  const groups = ids.map((i) => claimAndStart(i, until));
  const results = await inOneTransaction(db, () => groups.flat());
  return ids.map(({ id, attemptId }, n) => {
    const [[rendition], , , [account], segments, [publication]] = results.slice(n * groups[n].length, (n + 1) * groups[n].length) as ClaimResults;
    return { renditionId: id, attemptId, rendition, account, segments, publication };
  });
}

/** Claim one rendition and deliver it (deliverClaimed). */
export async function deliverRendition(db: Database, env: Env, renditionId: string, jobId: string, outcomes?: OutcomeSender): Promise<DeliveryOutcome> {
  const [claim] = await claimRenditions(db, [renditionId], jobId);
  return deliverClaimed(db, env, claim, jobId, outcomes);
}

/**
 * One delivery attempt of one rendition. Every step is committed as it happens, so a consumer that
 * dies at any point leaves a state the next one can continue from: segments confirmed posted are
 * never posted again, and an attempt whose outcome is unknown is reconciled with the provider first.
 * "skipped" when the claim (claimRenditions) did not take the rendition.
 */
export async function deliverClaimed(db: Database, env: Env, claim: Claim, jobId: string, outcomes?: OutcomeSender): Promise<DeliveryOutcome> {
  const { renditionId, attemptId, rendition, account, segments, publication } = claim;
  if (!rendition) return "skipped";
  // An earlier attempt that never finished (consumer died) or ended in doubt: ask the provider first.
  const inDoubt = rendition.status === "publishing" || rendition.status === "reconciling";
  const number = rendition.attemptCount + 1;
  const adapter = adapterFor(rendition.platform as Platform);
  const request: RenditionToPublish = {
    publicationId: publication.id,
    renditionId,
    title: rendition.title,
    deliveryKey: rendition.deliveryKey,
    segments: segments.map((s) => ({ position: s.position, title: s.titleOverride ?? s.title, body: s.bodyOverride ?? s.body, url: s.urlOverride ?? s.url, media: [] })),
  };
  const posted = new Map<number, PostRef>(
    segments.filter((s) => s.status === "published" && s.externalId).map((s) => [s.position, { id: s.externalId!, url: s.externalUrl, cid: s.externalCid ?? undefined }]),
  );

  let lastPosted: { position: number; ref: PostRef } | undefined;
  const lastPostedRecord = () => (lastPosted ? [postedSegment(renditionId, lastPosted.position, lastPosted.ref)] : []);
  try {
    if (!account || account.disconnectedAt) {
      throw new ProviderError("The destination account was disconnected.", { kind: "authentication", code: "account_disconnected", retryable: false });
    }
    const context = await accountContext(env, account);
    if (inDoubt) {
      const found = await adapter.reconcile(context, request);
      for (const [position, ref] of found) {
        if (!posted.has(position)) {
          posted.set(position, ref);
          await recordPosted(db, renditionId, position, ref);
        }
      }
      await db.update(renditions).set({ lastReconciledAt: sql`now()` }).where(eq(renditions.id, renditionId));
    }
    // The publication's media go out on the opening post (a thread carries them on its first post);
    // once that post is out they are not needed again.
    const opening = request.segments[0];
    if (opening && !posted.has(opening.position)) opening.media = await deliveryMedia(db, env, publication.mediaIds);
    const result = await adapter.publish(context, request, {
      posted,
      onPosted: async (position, ref) => {
        posted.set(position, ref);
        // The last segment: nothing is sent after it, so its record commits with the outcome, one request
        // fewer. (Either way a consumer dying after the post leaves the attempt in doubt: it is reconciled.)
        if (segments.every((s) => posted.has(s.position))) {
          lastPosted = { position, ref };
          return;
        }
        await recordPosted(db, renditionId, position, ref);
      },
    });
    const first = posted.get(0);
    // The outcome, the segments, the attempt and the audit entry commit together.
    const outcome = () =>
      publishedOutcome(
        { id: renditionId, attemptId, jobId, workspaceId: rendition.workspaceId, auditId: newId("aud") },
        { id: result.external_id ?? first?.id ?? null, url: result.external_url ?? first?.url ?? null },
        lastPostedRecord(),
      );
    await (outcomes ? outcomes(renditionId, outcome) : inOneTransaction(db, outcome));
    return "published";
  } catch (err) {
    const info = err instanceof ProviderError ? err.info : { kind: "unknown" as const, code: "internal", retryable: true, outcomeUnknown: true };
    const message = err instanceof ProviderError ? err.message : "Herald failed while delivering; it will check with the platform and try again.";
    if (!(err instanceof ProviderError)) logEvent("error", "delivery crashed", { rendition_id: renditionId, ...loggableError(err) });
    const decision = decideAfterFailure(info, number);
    const retryAt = decision.status === "failed" ? null : info.retryAt ?? new Date(Date.now() + retryDelaySeconds(number) * 1000);
    const failedPosition = segments.find((s) => !posted.has(s.position))?.position;
    const errorFields = { errorKind: info.kind, errorCode: info.code, errorMessage: message.slice(0, 500), errorHttpStatus: info.httpStatus ?? null, errorRetryAt: retryAt, errorAction: decision.errorAction };
    // Guarded: when the outcome's request committed but its answer was lost, the rendition is published and
    // its attempt succeeded; neither is overwritten with this failure.
    const [recorded] = await inOneTransaction(db, (q) => [
      q
        .update(renditions)
        .set({
          ...errorFields,
          status: decision.status,
          errorRetryable: info.retryable,
          recoveryAction: decision.recoveryAction,
          terminalReason: decision.terminalReason,
          nextAttemptAt: retryAt,
          leaseUntil: null,
          updatedAt: sql`now()`,
        })
        .where(and(eq(renditions.id, renditionId), ne(renditions.status, "published")))
        .returning({ id: renditions.id }),
      // A segment posted before the failure is on record all the same, so it is never posted again.
      ...lastPostedRecord(),
      ...(failedPosition !== undefined
        ? [q.update(renditionSegments).set({ ...errorFields, status: decision.status === "failed" ? "failed" : "pending" }).where(and(eq(renditionSegments.renditionId, renditionId), eq(renditionSegments.position, failedPosition)))]
        : []),
      q
        .update(deliveryAttempts)
        .set({ outcome: info.outcomeUnknown ? "unknown" : "failed", errorCode: info.code, finishedAt: sql`now()` })
        .where(and(eq(deliveryAttempts.id, attemptId), isNull(deliveryAttempts.finishedAt))),
    ]);
    return recorded.length > 0 ? (decision.status as DeliveryOutcome) : "published";
  }
}

import { and, asc, eq, exists, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { deliveryAttempts, publications, renditions, renditionSegments, socialAccounts } from "../../db/schema";
import { errorFields as loggableError, logEvent } from "../log";
import type { Platform } from "../../db/schema/accounts";
import type { Database, Queryable } from "../db/client";
import { insertWhere } from "../db/insert-where";
import type { Env } from "../env";
import { auditStatement } from "../audit";
import { inOneTransaction } from "../db/batch";
import { newId } from "../ids";
import { retryDelaySeconds } from "../jobs/consumer";
import { accountContext } from "../providers/account-context";
import { adapterFor } from "../providers/registry";
import { ProviderError, type PostRef, type RenditionToPublish } from "../providers/types";
import { deliveryMedia } from "./delivery-media";
import { decideAfterFailure } from "./status";

/** How long a consumer holds a rendition; renewed with every segment posted. A lapsed lease means it died. */
export const LEASE_MS = 120_000;

const leaseUntil = () => new Date(Date.now() + LEASE_MS);

/** What a delivery reads of its rendition (only these columns: building and mapping every one costs CPU per rendition). */
const claimed = {
  status: renditions.status,
  attemptCount: renditions.attemptCount,
  socialAccountId: renditions.socialAccountId,
  publicationId: renditions.publicationId,
  workspaceId: renditions.workspaceId,
  platform: renditions.platform,
  title: renditions.title,
  deliveryKey: renditions.deliveryKey,
};

/** What a delivery reads of each segment. */
const segmentFields = {
  position: renditionSegments.position,
  title: renditionSegments.title,
  titleOverride: renditionSegments.titleOverride,
  body: renditionSegments.body,
  bodyOverride: renditionSegments.bodyOverride,
  url: renditionSegments.url,
  urlOverride: renditionSegments.urlOverride,
  status: renditionSegments.status,
  externalId: renditionSegments.externalId,
  externalUrl: renditionSegments.externalUrl,
  externalCid: renditionSegments.externalCid,
};

/**
 * Take the rendition for this attempt unless another holds it or it is already done: the lease, and the
 * attempt's id as the mark the statements after it in the same batch go by. Returns the rendition as it was.
 */
const claim = (q: Queryable, id: string, attemptId: string) =>
  q
    .update(renditions)
    .set({ leaseUntil: leaseUntil(), currentAttemptId: attemptId })
    .where(and(eq(renditions.id, id), notInArray(renditions.status, ["published", "failed", "pending"]), or(isNull(renditions.leaseUntil), lt(renditions.leaseUntil, sql`now()`))))
    .returning(claimed);

/** A confirmed segment and the renewed lease, committed together before anything else is sent. */
async function recordPosted(db: Database, renditionId: string, position: number, ref: PostRef): Promise<void> {
  await inOneTransaction(db, (q) => [postedSegment(q, renditionId, position, ref), q.update(renditions).set({ leaseUntil: leaseUntil() }).where(eq(renditions.id, renditionId))]);
}

const postedSegment = (q: Queryable, renditionId: string, position: number, ref: PostRef) =>
  q
    .update(renditionSegments)
    .set({ status: "published", externalId: ref.id, externalUrl: ref.url, externalCid: ref.cid ?? null, errorKind: null, errorCode: null, errorMessage: null, errorHttpStatus: null, errorRetryAt: null, errorAction: null })
    .where(and(eq(renditionSegments.renditionId, renditionId), eq(renditionSegments.position, position)));

export type DeliveryOutcome = "published" | "retrying" | "reconciling" | "failed" | "skipped";

/**
 * One delivery attempt of one rendition. Every step is committed as it happens, so a consumer that
 * dies at any point leaves a state the next one can continue from: segments confirmed posted are
 * never posted again, and an attempt whose outcome is unknown is reconciled with the provider first.
 */
export async function deliverRendition(db: Database, env: Env, renditionId: string, jobId: string): Promise<DeliveryOutcome> {
  const attemptId = newId("att");
  // The claim and the attempt on record before anything is sent, and what it needs read, in one request:
  // each statement after the claim applies only to a rendition that carries this attempt's mark.
  const [[rendition], , , [found], segments, [publication]] = await inOneTransaction(db, (q) => {
    const claimedHere = and(eq(renditions.id, renditionId), eq(renditions.currentAttemptId, attemptId));
    return [
      claim(q, renditionId, attemptId),
      q
        .update(renditions)
        .set({ status: "publishing", attemptCount: sql`${renditions.attemptCount} + 1`, currentAttemptAt: sql`now()`, updatedAt: sql`now()` })
        .where(claimedHere),
      insertWhere(
        deliveryAttempts,
        { id: attemptId, renditionId, number: sql`(select ${renditions.attemptCount} from ${renditions} where ${renditions.id} = ${renditionId})`, jobId },
        exists(q.select({ one: sql`1` }).from(renditions).where(claimedHere)),
      ),
      q.select({ account: socialAccounts }).from(socialAccounts).innerJoin(renditions, eq(renditions.socialAccountId, socialAccounts.id)).where(claimedHere),
      q.select(segmentFields).from(renditionSegments).where(eq(renditionSegments.renditionId, renditionId)).orderBy(asc(renditionSegments.position)),
      q.select({ id: publications.id, mediaIds: publications.mediaIds }).from(publications).innerJoin(renditions, eq(renditions.publicationId, publications.id)).where(claimedHere),
    ];
  });
  if (!rendition) return "skipped";
  const account = found?.account;
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
  const lastPostedRecord = (q: Queryable) => (lastPosted ? [postedSegment(q, renditionId, lastPosted.position, lastPosted.ref)] : []);
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
    // The outcome, the segments, the attempt and the audit entry commit together, in one request.
    await inOneTransaction(db, (q) => [
      q
        .update(renditions)
        .set({
          status: "published",
          externalId: result.external_id ?? first?.id ?? null,
          externalUrl: result.external_url ?? first?.url ?? null,
          publishedAt: sql`now()`,
          leaseUntil: null,
          nextAttemptAt: null,
          errorKind: null,
          errorCode: null,
          errorMessage: null,
          errorHttpStatus: null,
          errorRetryable: false,
          errorRetryAt: null,
          errorAction: null,
          recoveryAction: "none",
          updatedAt: sql`now()`,
        })
        .where(eq(renditions.id, renditionId)),
      ...lastPostedRecord(q),
      q.update(renditionSegments).set({ status: "published" }).where(and(eq(renditionSegments.renditionId, renditionId), eq(renditionSegments.status, "pending"))),
      q.update(deliveryAttempts).set({ outcome: "succeeded", finishedAt: sql`now()` }).where(eq(deliveryAttempts.id, attemptId)),
      auditStatement(q, { actorUserId: null, actorKind: "system", workspaceId: rendition.workspaceId, action: "rendition.publish", targetType: "rendition", targetId: renditionId, requestId: jobId }),
    ]);
    return "published";
  } catch (err) {
    const info = err instanceof ProviderError ? err.info : { kind: "unknown" as const, code: "internal", retryable: true, outcomeUnknown: true };
    const message = err instanceof ProviderError ? err.message : "Herald failed while delivering; it will check with the platform and try again.";
    if (!(err instanceof ProviderError)) logEvent("error", "delivery crashed", { rendition_id: renditionId, ...loggableError(err) });
    const decision = decideAfterFailure(info, number);
    const retryAt = decision.status === "failed" ? null : info.retryAt ?? new Date(Date.now() + retryDelaySeconds(number) * 1000);
    const failedPosition = segments.find((s) => !posted.has(s.position))?.position;
    const errorFields = { errorKind: info.kind, errorCode: info.code, errorMessage: message.slice(0, 500), errorHttpStatus: info.httpStatus ?? null, errorRetryAt: retryAt, errorAction: decision.errorAction };
    await inOneTransaction(db, (q) => [
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
        .where(eq(renditions.id, renditionId)),
      // A segment posted before the failure is on record all the same, so it is never posted again.
      ...lastPostedRecord(q),
      ...(failedPosition !== undefined
        ? [q.update(renditionSegments).set({ ...errorFields, status: decision.status === "failed" ? "failed" : "pending" }).where(and(eq(renditionSegments.renditionId, renditionId), eq(renditionSegments.position, failedPosition)))]
        : []),
      q
        .update(deliveryAttempts)
        .set({ outcome: info.outcomeUnknown ? "unknown" : "failed", errorCode: info.code, finishedAt: sql`now()` })
        .where(eq(deliveryAttempts.id, attemptId)),
    ]);
    return decision.status as DeliveryOutcome;
  }
}

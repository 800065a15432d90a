import type { Platform } from "../../db/schema/accounts";
import { inOneTransactionNamed } from "../db/batch";
import type { Database } from "../db/client";
import type { Env } from "../env";
import { errorFields, logEvent } from "../log";
import { accountContext } from "../accounts/account-context";
import { isOAuthPlatform } from "../providers/oauth/platforms";
import { adapterFor } from "../platforms/registry";
import { ProviderError, type PostRef, type RenditionToPublish } from "../providers/types";
import { deliveryMedia } from "../publishing/delivery-media";
import { attemptOfRound, decideAfterFailure, decideBeforeAttempt, inDoubt, LEASE_RENEW_EVERY_SECONDS, type FailureInfo } from "./rules";
import { publishedGroup, recordFailure, recordPosted, recordReconciled, renewLease, type AttemptIds, type Claim, type PublishedGroup } from "./store";
import { clearCheckpoint, loadCheckpoint, saveCheckpoint } from "./upload-checkpoints";

/** `lost`: another attempt holds the rendition now (this one's lease lapsed), so this one wrote nothing. */
export type DeliveryOutcome = "published" | "retrying" | "reconciling" | "failed" | "skipped" | "lost";

/** Commits a published outcome; true when this attempt still held the rendition. A job may gather several into one request. */
export type CommitPublished = (renditionId: string, group: PublishedGroup) => Promise<boolean>;

/** Thrown inside a delivery once its lease is found lost: stop sending, write nothing. */
class LeaseLost extends Error {}

/**
 * Renews the attempt's lease every LEASE_RENEW_EVERY_SECONDS while a provider call runs (a slow media upload),
 * and remembers when it was lost. Renewal failures are logged, never thrown: nothing may reject unhandled.
 */
function holdLease(db: Database, ids: AttemptIds) {
  let lost = false;
  const timer = setInterval(() => {
    renewLease(db, ids).then(
      (held) => {
        if (!held) lost = true;
      },
      (err) => logEvent("warn", "lease renewal failed", { rendition_id: ids.id, ...errorFields(err) }),
    );
  }, LEASE_RENEW_EVERY_SECONDS * 1000);
  return {
    check() {
      if (lost) throw new LeaseLost();
    },
    stop: () => clearInterval(timer),
  };
}

/** What a thrown error means for the attempt. */
function failureOf(err: unknown): { info: FailureInfo & { httpStatus?: number }; message: string } {
  if (err instanceof ProviderError) {
    const { retryAt, ...info } = err.info;
    // The platform's time, carried as a wait from now so that the database's clock applies it.
    const retryAfterSeconds = retryAt ? Math.max(0, (retryAt.getTime() - Date.now()) / 1000) : undefined;
    return { info: { ...info, retryAfterSeconds }, message: err.message };
  }
  // Herald itself failed mid-delivery: the call may have gone out, so the next attempt asks the platform first.
  return {
    info: { kind: "unknown", code: "internal", retryable: true, outcomeUnknown: true },
    message: "Herald failed while delivering; it will check with the platform and try again.",
  };
}

/**
 * One attempt of one claimed rendition. Each confirmed segment is on record (with the lease renewed) before
 * the next is sent, and an attempt after one that may have reached the platform asks the platform first, so
 * nothing confirmed is sent twice; every write is fenced by the attempt (./store.ts).
 */
export async function deliverClaimed(db: Database, env: Env, claim: Claim, commitPublished?: CommitPublished): Promise<DeliveryOutcome> {
  const { rendition, account, segments, publication } = claim;
  if (!rendition || !publication) return "skipped";
  const ids: AttemptIds = { id: claim.id, attemptId: claim.attemptId, jobId: claim.jobId };
  const attempt = attemptOfRound(rendition);

  const exhausted = decideBeforeAttempt(rendition);
  if (exhausted) {
    const ended = await recordFailure(db, ids, {
      decision: exhausted,
      info: { kind: "unknown", retryable: false, outcomeUnknown: inDoubt(rendition.status) },
      message: "Herald used every delivery attempt.",
    });
    return ended === "recorded" ? exhausted.status : ended;
  }

  const adapter = adapterFor(rendition.platform as Platform);
  const request: RenditionToPublish = {
    publicationId: publication.id,
    renditionId: ids.id,
    title: rendition.title,
    deliveryKey: rendition.deliveryKey,
    segments: segments.map((s) => ({
      position: s.position,
      title: s.titleOverride ?? s.title,
      body: s.bodyOverride ?? s.body,
      url: s.urlOverride ?? s.url,
      media: [],
    })),
  };
  const posted = new Map<number, PostRef>(
    segments
      .filter((s) => s.status === "published" && s.externalId)
      .map((s) => [s.position, { id: s.externalId!, url: s.externalUrl, cid: s.externalCid ?? undefined }]),
  );
  const record = async (position: number, ref: PostRef) => {
    if (!(await recordPosted(db, ids, position, ref))) throw new LeaseLost();
  };
  let lastPosted: { position: number; ref: PostRef } | undefined;
  const lease = holdLease(db, ids);
  try {
    if (!account || account.disconnectedAt) {
      throw new ProviderError("The destination account was disconnected.", { kind: "authentication", code: "account_disconnected", retryable: false });
    }
    const context = await accountContext(env, account, db);
    if (inDoubt(rendition.status)) {
      for (const [position, ref] of await adapter.reconcile(context, request)) {
        if (posted.has(position)) continue;
        posted.set(position, ref);
        await record(position, ref);
      }
      await recordReconciled(db, ids);
    }
    // The publication's media go out on the opening post (a thread carries them on its first post).
    const opening = request.segments[0];
    if (opening && !posted.has(opening.position)) opening.media = await deliveryMedia(db, env, publication.mediaIds, rendition.platform === "webhook");
    lease.check();
    const result = await adapter.publish(context, request, {
      posted,
      onPosted: async (position, ref) => {
        posted.set(position, ref);
        // The last segment: nothing is sent after it, so its record commits with the outcome, one request fewer.
        if (segments.every((s) => posted.has(s.position))) {
          lastPosted = { position, ref };
          return;
        }
        lease.check();
        await record(position, ref);
      },
      // Chunked video uploads (issue 29): each confirmed chunk is saved with the lease renewed, fenced by this
      // attempt, so the next attempt resumes after it; a lost lease stops the upload before the next chunk.
      uploads: {
        load: (key) => loadCheckpoint(db, ids.id, key),
        save: async (key, checkpoint) => {
          lease.check();
          if (!(await saveCheckpoint(db, ids, key, checkpoint))) throw new LeaseLost();
        },
        clear: (key) => clearCheckpoint(db, ids, key),
      },
    });
    const first = posted.get(segments[0]?.position ?? 0);
    const group = publishedGroup(
      { ...ids, workspaceId: rendition.workspaceId },
      { id: result.external_id ?? first?.id ?? null, url: result.external_url ?? first?.url ?? null },
      lastPosted,
    );
    const held = commitPublished ? await commitPublished(ids.id, group) : (await inOneTransactionNamed(db, () => [group]))[0].published.length > 0;
    return held ? "published" : "lost";
  } catch (err) {
    if (err instanceof LeaseLost) return "lost";
    if (!(err instanceof ProviderError)) logEvent("error", "delivery crashed", { rendition_id: ids.id, ...errorFields(err) });
    const { info, message } = failureOf(err);
    const decision = decideAfterFailure(info, attempt);
    const recorded = await recordFailure(db, ids, {
      decision,
      info,
      message,
      httpStatus: info.httpStatus,
      failedPosition: segments.find((s) => !posted.has(s.position))?.position,
      lastPosted,
      // A refused OAuth token (revoked, or its scopes withdrawn) needs the owner to connect again; other platforms'
      // credentials are replaced by adding the account again, so their status is left as it is.
      reconnectAccountId: info.kind === "authentication" && account && isOAuthPlatform(account.platform) ? account.id : undefined,
    });
    return recorded === "recorded" ? decision.status : recorded;
  } finally {
    lease.stop();
  }
}

import { and, eq, isNull, sql } from "drizzle-orm";
import { renditions, repostActivity, repostAttempts, socialAccounts } from "../../db/schema";
import type { Database } from "../db/client";
import type { Env } from "../env";
import { logEvent } from "../log";
import { accountContext } from "../accounts/account-context";
import { blueskyRepost, blueskyUnrepost } from "../platforms/bluesky/repost";
import { linkedinReshare, linkedinUnreshare, RESHARE_UNCONFIRMED } from "../platforms/linkedin/repost";
import { localStatusId, mastodonReblog, mastodonUnreblog } from "../platforms/mastodon/reblog";
import { ProviderError, type AccountContext } from "../providers/types";
import { threadsRepost, threadsUnrepostUnavailable } from "../platforms/threads/repost";
import { xRetweet, xUnretweet } from "../platforms/x/repost";
import { activityOf as activity } from "./activity";
import { deferToReset } from "./defer";
import { dropQueuedAttempts, withdrawnReason } from "./withdrawals";

type Attempt = typeof repostAttempts.$inferSelect;

interface Subject {
  platform: string;
  externalId: string;
  externalUrl: string | null;
  instanceUrl: string | null;
}

/**
 * Carries out one queued repost attempt through its target account, undoing the previous stage first when
 * the attempt says so. First, at this moment, whether it is still allowed (lib/repost/withdrawals.ts): a
 * disabled policy or a withdrawn grant drops it, recorded with the reason, and nothing is asked of the platform. Safe to run again: the Bluesky record key comes from the attempt id and is read
 * before and after creating; a Mastodon reblog is read (`reblogged`) before asking; X ignores a duplicate retweet; a Threads repost is looked for
 * among the account's posts before and after asking; a LinkedIn reshare too, and where LinkedIn will not let it
 * be read the attempt's row carries RESHARE_UNCONFIRMED while an ask is unanswered (lib/platforms/linkedin/repost.ts).
 * A rate limit with a reset time waits for it (./defer.ts); other provider errors that may pass are rethrown for
 * the queue's retry with backoff; others end the attempt as failed.
 */
export async function executeRepost(db: Database, env: Env, attemptId: string): Promise<void> {
  const [attempt] = await db.select().from(repostAttempts).where(eq(repostAttempts.id, attemptId));
  if (!attempt || attempt.status !== "queued") return;
  const withdrawn = await withdrawnReason(db, attempt);
  if (withdrawn) {
    logEvent("info", "repost dropped", { attempt_id: attempt.id, reason: withdrawn });
    await db.transaction((tx) => dropQueuedAttempts(tx, eq(repostAttempts.id, attempt.id), withdrawn));
    return;
  }
  const [target] = await db
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.id, attempt.targetAccountId), isNull(socialAccounts.disconnectedAt)));
  const [post] = await db
    .select({ platform: renditions.platform, externalId: renditions.externalId, externalUrl: renditions.externalUrl, instanceUrl: socialAccounts.instanceUrl })
    .from(renditions)
    .innerJoin(socialAccounts, eq(socialAccounts.id, renditions.socialAccountId))
    .where(eq(renditions.id, attempt.renditionId));
  if (!target) return fail(db, attempt, "target_unavailable", "the target account is no longer connected");
  if (!post?.externalId) return fail(db, attempt, "subject_not_found", "the post has no provider id");
  const subject = post as Subject;
  const account = await accountContext(env, target, db);
  try {
    if (attempt.unrepostPrevious && attempt.stage > 0) await undoPrevious(db, account, attempt, subject);
    const externalId = await repost(db, account, attempt, subject);
    await db.transaction(async (tx) => {
      const [done] = await tx
        .update(repostAttempts)
        .set({ status: "done", externalId, completedAt: sql`now()`, attempts: sql`${repostAttempts.attempts} + 1` })
        .where(and(eq(repostAttempts.id, attempt.id), eq(repostAttempts.status, "queued")))
        .returning({ id: repostAttempts.id });
      if (done) await tx.insert(repostActivity).values(activity(attempt, "repost", "done", `reposted at stage ${attempt.stage}`, externalId));
    });
  } catch (err) {
    if (err instanceof ProviderError && !err.info.retryable && !err.info.outcomeUnknown) return fail(db, attempt, err.info.code, err.message);
    if (await deferToReset(db, attempt, err)) return;
    // An unanswered LinkedIn reshare keeps its mark (set before asking): the retry must not ask blindly again.
    const known = err instanceof ProviderError && !err.info.outcomeUnknown;
    await db
      .update(repostAttempts)
      .set({
        attempts: sql`${repostAttempts.attempts} + 1`,
        errorCode: known
          ? err.info.code
          : sql`case when ${repostAttempts.errorCode} = ${RESHARE_UNCONFIRMED} then ${RESHARE_UNCONFIRMED} else ${err instanceof ProviderError ? err.info.code : "error"} end`,
      })
      .where(eq(repostAttempts.id, attempt.id));
    throw err;
  }
}

/** An X, Threads or LinkedIn account reposts posts of its own platform only (a post id means nothing elsewhere). */
function samePlatformPost(account: AccountContext, subject: Subject): string {
  if (subject.platform !== account.platform)
    throw new ProviderError(`A ${account.platform} account can repost only a post on ${account.platform}.`, {
      kind: "validation",
      code: "subject_not_found",
      retryable: false,
    });
  return subject.externalId;
}

async function repost(db: Database, account: AccountContext, attempt: Attempt, subject: Subject): Promise<string> {
  if (account.platform === "bluesky") return blueskyRepost(account, attempt.id, subject.externalId);
  if (account.platform === "x") return xRetweet(account, samePlatformPost(account, subject));
  if (account.platform === "threads") return threadsRepost(account, samePlatformPost(account, subject));
  if (account.platform === "linkedin") {
    const parent = samePlatformPost(account, subject);
    // Committed before asking, so even a Worker killed mid-ask leaves the mark for the retry to see.
    await db.update(repostAttempts).set({ errorCode: RESHARE_UNCONFIRMED }).where(eq(repostAttempts.id, attempt.id));
    return linkedinReshare(account, parent, { askedBefore: attempt.errorCode === RESHARE_UNCONFIRMED });
  }
  const statusId = await localStatusId(account, { id: subject.externalId, url: subject.externalUrl, instanceUrl: subject.instanceUrl });
  return (await mastodonReblog(account, statusId)).id;
}

/** Undoes stage k-1's repost once; recorded as its own activity. */
async function undoPrevious(db: Database, account: AccountContext, attempt: Attempt, subject: Subject): Promise<void> {
  const [previous] = await db
    .select()
    .from(repostAttempts)
    .where(
      and(
        eq(repostAttempts.renditionId, attempt.renditionId),
        attempt.policyId ? eq(repostAttempts.policyId, attempt.policyId) : isNull(repostAttempts.policyId),
        eq(repostAttempts.targetAccountId, attempt.targetAccountId),
        eq(repostAttempts.stage, attempt.stage - 1),
      ),
    );
  if (!previous || previous.status !== "done" || previous.unrepostedAt) return;
  if (account.platform === "bluesky") await blueskyUnrepost(account, previous.id);
  else if (account.platform === "x") await xUnretweet(account, samePlatformPost(account, subject));
  else if (account.platform === "threads") threadsUnrepostUnavailable();
  else if (account.platform === "linkedin") {
    if (previous.externalId) await linkedinUnreshare(account, previous.externalId);
  } else await mastodonUnreblog(account, await localStatusId(account, { id: subject.externalId, url: subject.externalUrl, instanceUrl: subject.instanceUrl }));
  await db.transaction(async (tx) => {
    const [marked] = await tx
      .update(repostAttempts)
      .set({ unrepostedAt: sql`now()` })
      .where(and(eq(repostAttempts.id, previous.id), isNull(repostAttempts.unrepostedAt)))
      .returning({ id: repostAttempts.id });
    if (marked)
      await tx
        .insert(repostActivity)
        .values(activity(previous, "unrepost", "done", `undone before stage ${attempt.stage} (unrepost_previous)`, previous.externalId));
  });
}

/** Ends the attempt as failed (once), saying why; later stages of it then stop. */
export async function fail(db: Database, attempt: Attempt, code: string, why: string): Promise<void> {
  logEvent("warn", "repost failed", { attempt_id: attempt.id, code });
  await db.transaction(async (tx) => {
    const [failed] = await tx
      .update(repostAttempts)
      .set({ status: "failed", errorCode: code.slice(0, 100), completedAt: sql`now()` })
      .where(and(eq(repostAttempts.id, attempt.id), eq(repostAttempts.status, "queued")))
      .returning({ id: repostAttempts.id });
    if (failed) await tx.insert(repostActivity).values(activity(attempt, "repost", "failed", `${code}: ${why}`, null));
  });
}

/**
 * How long Herald keeps each kind of history, in one place (docs/operations/retention.md lists the same). Sweeps in this
 * folder remove rows past these, by the database's clock; the reasons below are what bound each number.
 */
export const RETENTION = {
  /** Idempotency keys: 24 h, as CONTRACT.md §2 promises a retried request its first answer. */
  idempotencyKeysHours: 24,
  /** Finished outbox rows: a week when done, two when dead (administrators look at those in GET /admin/jobs). */
  doneJobsDays: 7,
  deadJobsDays: 14,
  /**
   * Job receipts: longer than SQS keeps any message (14 days at most, dead-letter queues included), so no
   * redelivery outlives its receipt; and longer than the outbox rows they settle.
   */
  receiptsDays: 15,
  /** WebAuthn challenges live 5 minutes; ended browser sessions are kept a day past their end. */
  challengesHours: 1,
  endedSessionsDays: 1,
  /**
   * Invitations, 30 days past their expiry: one is good for 7 days, so by then it has long ended (accepted, revoked
   * or unused) and GET /workspaces/{id}/invitations has shown how for a month.
   */
  invitationsDays: 30,
  /** OAuth connection states live 10 minutes (CONTRACT §9); an hour past their expiry nobody can use one. */
  oauthStatesHours: 1,
  /** Delivery attempts (by start): a delivery ends within hours (8 attempts at most), this keeps a quarter of history. */
  deliveryAttemptsDays: 90,
  /**
   * Outbound events (by creation), their deliveries and attempts with them: a delivery ends within a couple of hours
   * (8 attempts, CONTRACT §4), so a month leaves a webhook endpoint's delivery log (and redelivery) plenty of time.
   */
  outboundEventsDays: 30,
  /** Repost activity (GET /repost-automation/activity): a quarter, like delivery history. */
  repostActivityDays: 90,
  /**
   * Repost attempts (by creation) are what makes a repost exactly once, so they outlive the longest a policy can
   * still act on a post: a 7-day evaluation window, a 30-day first delay and 5 stages of up to 30 days each
   * (CONTRACT §8) is about 190 days (MAX_HORIZON_MS, lib/repost/candidates.ts); a year and a month leaves room.
   */
  repostAttemptsDays: 400,
  /**
   * Analytics measurements superseded by a newer one of the same series: GET /analytics reads at most 90 days
   * back (plus the latest value and each series' baseline before the range, which are kept however old).
   */
  analyticsWindowDays: 90,
  analyticsMeasurementsDays: 120,
  /**
   * Provider cost events are folded into monthly totals once their whole calendar month (UTC) is older than
   * this: a billing period is one month, so no period's usage ever reads a folded month.
   */
  providerCostEventsDays: 100,
  /**
   * Usage events (what an organization created, counted against its plan) matter only inside the monthly usage period
   * that contains them (lib/billing/state.ts organizationUsage); past 100 days none can be counted again.
   */
  usageEventsDays: 100,
  /** Audit events are the evidence kept longest: two years. */
  auditEventsDays: 730,
} as const;

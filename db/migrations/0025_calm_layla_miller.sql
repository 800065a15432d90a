ALTER TABLE "analytics_coverage" ADD COLUMN "backoff_until" timestamp (3) with time zone;--> statement-breakpoint
-- Accounts already failing keep the time they were told to wait until.
UPDATE "analytics_coverage" SET "backoff_until" = "next_eligible_at" WHERE "consecutive_failures" > 0;

ALTER TABLE "publications" ADD COLUMN "last_swept_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "renditions" ADD COLUMN "attempts_before_round" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "renditions_in_flight_idx" ON "renditions" USING btree ("next_attempt_at") WHERE "renditions"."status" in ('queued', 'retrying', 'reconciling', 'publishing');
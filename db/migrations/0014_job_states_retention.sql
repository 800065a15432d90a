ALTER TABLE "outbox_jobs" ADD COLUMN "state" text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox_jobs" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox_jobs" ADD COLUMN "job_error" text;--> statement-breakpoint
ALTER TABLE "outbox_jobs" ADD COLUMN "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox_jobs" ADD COLUMN "finished_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "job_receipts_completed_idx" ON "job_receipts" USING btree ("completed_at");--> statement-breakpoint
CREATE INDEX "outbox_jobs_state_idx" ON "outbox_jobs" USING btree ("state","created_at","id");--> statement-breakpoint
CREATE INDEX "outbox_jobs_finished_idx" ON "outbox_jobs" USING btree ("finished_at") WHERE "outbox_jobs"."finished_at" is not null;--> statement-breakpoint
UPDATE "outbox_jobs" o SET "state" = CASE WHEN r."state" = 'done' THEN 'done' ELSE 'dead' END, "finished_at" = r."completed_at", "attempts" = r."attempts", "job_error" = r."last_error" FROM "job_receipts" r WHERE r."job_id" = o."id";--> statement-breakpoint
UPDATE "outbox_jobs" SET "state" = CASE WHEN "dead_letter" THEN 'dead' ELSE 'queued' END, "finished_at" = CASE WHEN "dead_letter" THEN "sent_at" END WHERE "state" = 'pending' AND "sent_at" IS NOT NULL;

CREATE TABLE "delivery_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"rendition_id" text NOT NULL,
	"number" integer NOT NULL,
	"job_id" text,
	"outcome" text DEFAULT 'in_flight' NOT NULL,
	"error_code" text,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "publication_segments" (
	"id" text PRIMARY KEY NOT NULL,
	"publication_id" text NOT NULL,
	"position" integer NOT NULL,
	"title" text,
	"body" text NOT NULL,
	"url" text
);
--> statement-breakpoint
CREATE TABLE "publications" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"status" text NOT NULL,
	"title" text,
	"source_text" text NOT NULL,
	"source_url" text,
	"content_profile" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"media_ids" text[] DEFAULT '{}' NOT NULL,
	"platforms" text[] DEFAULT '{}' NOT NULL,
	"scheduled_at" timestamp (3) with time zone,
	"random_delay_minutes" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp (3) with time zone,
	"actual_run_at" timestamp (3) with time zone,
	"calendar_at" timestamp (3) with time zone,
	"failure_dismissed_at" timestamp (3) with time zone,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rendition_segments" (
	"id" text PRIMARY KEY NOT NULL,
	"rendition_id" text NOT NULL,
	"publication_segment_id" text,
	"position" integer NOT NULL,
	"title" text,
	"body" text NOT NULL,
	"url" text,
	"title_override" text,
	"body_override" text,
	"url_override" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"external_id" text,
	"external_url" text,
	"external_cid" text,
	"error_kind" text,
	"error_code" text,
	"error_message" text,
	"error_http_status" integer,
	"error_retry_at" timestamp (3) with time zone,
	"error_action" text
);
--> statement-breakpoint
CREATE TABLE "renditions" (
	"id" text PRIMARY KEY NOT NULL,
	"publication_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"social_account_id" text NOT NULL,
	"platform" text NOT NULL,
	"position" integer NOT NULL,
	"title" text,
	"body" text NOT NULL,
	"format_locked" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"delivery_key" text NOT NULL,
	"external_id" text,
	"external_url" text,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"current_attempt_id" text,
	"current_attempt_at" timestamp (3) with time zone,
	"next_attempt_at" timestamp (3) with time zone,
	"lease_until" timestamp (3) with time zone,
	"last_reconciled_at" timestamp (3) with time zone,
	"error_kind" text,
	"error_code" text,
	"error_message" text,
	"error_http_status" integer,
	"error_retryable" boolean DEFAULT false NOT NULL,
	"error_retry_at" timestamp (3) with time zone,
	"error_action" text,
	"terminal_reason" text,
	"recovery_action" text DEFAULT 'none' NOT NULL,
	"published_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_rendition_id_renditions_id_fk" FOREIGN KEY ("rendition_id") REFERENCES "public"."renditions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "publication_segments" ADD CONSTRAINT "publication_segments_publication_id_publications_id_fk" FOREIGN KEY ("publication_id") REFERENCES "public"."publications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "publications" ADD CONSTRAINT "publications_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "publications" ADD CONSTRAINT "publications_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rendition_segments" ADD CONSTRAINT "rendition_segments_rendition_id_renditions_id_fk" FOREIGN KEY ("rendition_id") REFERENCES "public"."renditions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "renditions" ADD CONSTRAINT "renditions_publication_id_publications_id_fk" FOREIGN KEY ("publication_id") REFERENCES "public"."publications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "renditions" ADD CONSTRAINT "renditions_social_account_id_social_accounts_id_fk" FOREIGN KEY ("social_account_id") REFERENCES "public"."social_accounts"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "delivery_attempts_number_key" ON "delivery_attempts" USING btree ("rendition_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "publication_segments_position_key" ON "publication_segments" USING btree ("publication_id","position");--> statement-breakpoint
CREATE INDEX "publications_workspace_created_idx" ON "publications" USING btree ("workspace_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "publications_workspace_status_idx" ON "publications" USING btree ("workspace_id","status","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "publications_workspace_profile_idx" ON "publications" USING btree ("workspace_id","content_profile","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "publications_workspace_calendar_idx" ON "publications" USING btree ("workspace_id","calendar_at");--> statement-breakpoint
CREATE INDEX "publications_platforms_idx" ON "publications" USING gin ("platforms");--> statement-breakpoint
CREATE INDEX "publications_search_idx" ON "publications" USING gin ((coalesce("title", '') || ' ' || "source_text") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "publications_due_idx" ON "publications" USING btree ("run_at") WHERE "publications"."status" = 'scheduled';--> statement-breakpoint
CREATE UNIQUE INDEX "rendition_segments_position_key" ON "rendition_segments" USING btree ("rendition_id","position");--> statement-breakpoint
CREATE INDEX "renditions_publication_idx" ON "renditions" USING btree ("publication_id","position");--> statement-breakpoint
CREATE INDEX "renditions_account_idx" ON "renditions" USING btree ("social_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "renditions_delivery_key" ON "renditions" USING btree ("delivery_key");
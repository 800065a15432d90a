CREATE TABLE "analytics_content_items" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"account_id" text NOT NULL,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"rendition_id" text,
	"publication_id" text,
	"published_at" timestamp (3) with time zone NOT NULL,
	"title" text,
	"excerpt" text,
	"external_url" text,
	"engagement" bigint DEFAULT 0 NOT NULL,
	"views" bigint,
	"last_synced_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "analytics_content_items_source_check" CHECK ("analytics_content_items"."source" in ('native','external'))
);
--> statement-breakpoint
CREATE TABLE "analytics_coverage" (
	"account_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"description" text,
	"failure_code" text,
	"failure_message" text,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"initial_items_discovered" integer DEFAULT 0 NOT NULL,
	"backfill_watermark" timestamp (3) with time zone,
	"backfill_cursor" text,
	"initial_completed_at" timestamp (3) with time zone,
	"last_attempted_at" timestamp (3) with time zone,
	"last_success_at" timestamp (3) with time zone,
	"next_eligible_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "analytics_coverage_account_id_pk" PRIMARY KEY("account_id")
);
--> statement-breakpoint
CREATE TABLE "analytics_measurements" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"account_id" text NOT NULL,
	"content_item_id" text,
	"metric" text NOT NULL,
	"value" bigint,
	"availability" text DEFAULT 'available' NOT NULL,
	"unavailable_reason" text,
	"collected_at" timestamp (3) with time zone NOT NULL,
	"aggregation" text DEFAULT 'current_snapshot' NOT NULL,
	"period_start" timestamp (3) with time zone,
	"period_end" timestamp (3) with time zone,
	"unit" text DEFAULT 'count' NOT NULL,
	"source" text NOT NULL,
	"scale" double precision DEFAULT 1 NOT NULL,
	CONSTRAINT "analytics_measurements_availability_check" CHECK ("analytics_measurements"."availability" in ('available','unavailable')),
	CONSTRAINT "analytics_measurements_value_check" CHECK (("analytics_measurements"."availability" = 'available') = ("analytics_measurements"."value" is not null))
);
--> statement-breakpoint
ALTER TABLE "analytics_content_items" ADD CONSTRAINT "analytics_content_items_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_content_items" ADD CONSTRAINT "analytics_content_items_account_id_social_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."social_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_content_items" ADD CONSTRAINT "analytics_content_items_rendition_id_renditions_id_fk" FOREIGN KEY ("rendition_id") REFERENCES "public"."renditions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_content_items" ADD CONSTRAINT "analytics_content_items_publication_id_publications_id_fk" FOREIGN KEY ("publication_id") REFERENCES "public"."publications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_coverage" ADD CONSTRAINT "analytics_coverage_account_id_social_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."social_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_coverage" ADD CONSTRAINT "analytics_coverage_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_measurements" ADD CONSTRAINT "analytics_measurements_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_measurements" ADD CONSTRAINT "analytics_measurements_account_id_social_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."social_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_measurements" ADD CONSTRAINT "analytics_measurements_content_item_id_analytics_content_items_id_fk" FOREIGN KEY ("content_item_id") REFERENCES "public"."analytics_content_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "analytics_content_items_account_external_key" ON "analytics_content_items" USING btree ("account_id","external_id");--> statement-breakpoint
CREATE INDEX "analytics_content_items_workspace_published_idx" ON "analytics_content_items" USING btree ("workspace_id","published_at","id");--> statement-breakpoint
CREATE INDEX "analytics_content_items_publication_idx" ON "analytics_content_items" USING btree ("publication_id");--> statement-breakpoint
CREATE INDEX "analytics_content_items_rendition_idx" ON "analytics_content_items" USING btree ("rendition_id");--> statement-breakpoint
CREATE INDEX "analytics_coverage_workspace_idx" ON "analytics_coverage" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "analytics_coverage_next_eligible_idx" ON "analytics_coverage" USING btree ("next_eligible_at");--> statement-breakpoint
CREATE INDEX "analytics_measurements_item_metric_idx" ON "analytics_measurements" USING btree ("content_item_id","metric","collected_at");--> statement-breakpoint
CREATE INDEX "analytics_measurements_account_metric_idx" ON "analytics_measurements" USING btree ("account_id","metric","collected_at") WHERE "analytics_measurements"."content_item_id" is null;--> statement-breakpoint
CREATE INDEX "analytics_measurements_workspace_collected_idx" ON "analytics_measurements" USING btree ("workspace_id","collected_at");
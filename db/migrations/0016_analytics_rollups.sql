ALTER TABLE "analytics_content_items" ADD COLUMN "latest_metrics" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "analytics_content_items" ADD COLUMN "metrics_collected_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "analytics_content_items" ADD COLUMN "rollup_at" timestamp (3) with time zone DEFAULT now() NOT NULL;
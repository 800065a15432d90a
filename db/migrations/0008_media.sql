CREATE TABLE "media" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"object_key" text NOT NULL,
	"mime_type" text NOT NULL,
	"media_type" text NOT NULL,
	"size" bigint NOT NULL,
	"original_filename" text,
	"alt_text" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"is_favorite" boolean DEFAULT false NOT NULL,
	"asset_kind" text DEFAULT 'library' NOT NULL,
	"source" text DEFAULT 'upload' NOT NULL,
	"parent_media_id" text,
	"design_document_id" text,
	"design_page_id" text,
	"width" integer,
	"height" integer,
	"rotation" integer,
	"duration_ms" integer,
	"frame_rate" double precision,
	"bit_rate" integer,
	"audio_channels" integer,
	"audio_codec" text,
	"video_codec" text,
	"video_profile" text,
	"container_format" text,
	"pixel_format" text,
	"color_space" text,
	"processing_status" text DEFAULT 'ready' NOT NULL,
	"retention_class" text DEFAULT 'library' NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"trashed_at" timestamp (3) with time zone,
	"trash_reason" text,
	"purge_after" timestamp (3) with time zone,
	"purge_blocked_reason" text,
	"purge_blocked_at" timestamp (3) with time zone,
	"usage_count" integer DEFAULT 0 NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"lifecycle" text GENERATED ALWAYS AS (CASE WHEN trashed_at IS NOT NULL THEN 'trash' ELSE retention_class END) STORED NOT NULL,
	"aspect" text GENERATED ALWAYS AS (CASE WHEN width IS NULL OR height IS NULL OR width <= 0 OR height <= 0 THEN NULL WHEN greatest(width, height) * 50 <= least(width, height) * 51 THEN 'square' WHEN width > height THEN 'landscape' ELSE 'portrait' END) STORED,
	CONSTRAINT "media_object_key_unique" UNIQUE("object_key"),
	CONSTRAINT "media_media_type_check" CHECK ("media"."media_type" in ('image','video','audio')),
	CONSTRAINT "media_retention_class_check" CHECK ("media"."retention_class" in ('library','temporary')),
	CONSTRAINT "media_size_check" CHECK ("media"."size" >= 0)
);
--> statement-breakpoint
CREATE TABLE "media_purged_objects" (
	"object_key" text PRIMARY KEY NOT NULL,
	"media_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"purged_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text
);
--> statement-breakpoint
ALTER TABLE "media" ADD CONSTRAINT "media_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "media_list_created_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","created_at","id");--> statement-breakpoint
CREATE INDEX "media_list_name_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle",lower("original_filename"),"id");--> statement-breakpoint
CREATE INDEX "media_list_size_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","size","id");--> statement-breakpoint
CREATE INDEX "media_list_used_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","last_used_at" DESC NULLS LAST,"created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "media_list_favorite_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","created_at","id") WHERE "media"."is_favorite";--> statement-breakpoint
CREATE INDEX "media_list_untagged_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","created_at","id") WHERE "media"."tags" = '{}'::text[];--> statement-breakpoint
CREATE INDEX "media_list_type_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","media_type","aspect","created_at","id");--> statement-breakpoint
CREATE INDEX "media_list_source_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","source","created_at","id");--> statement-breakpoint
CREATE INDEX "media_list_width_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","width");--> statement-breakpoint
CREATE INDEX "media_list_height_idx" ON "media" USING btree ("workspace_id","asset_kind","lifecycle","height");--> statement-breakpoint
CREATE INDEX "media_tags_idx" ON "media" USING gin ("workspace_id","tags");--> statement-breakpoint
CREATE INDEX "media_search_idx" ON "media" USING gin ("workspace_id","search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "media_purge_trash_idx" ON "media" USING btree ("purge_after") WHERE "media"."trashed_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "media_purge_temporary_idx" ON "media" USING btree ("expires_at") WHERE "media"."trashed_at" IS NULL AND "media"."retention_class" = 'temporary';
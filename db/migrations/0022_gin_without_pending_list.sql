DROP INDEX "publications_platforms_idx";--> statement-breakpoint
DROP INDEX "media_tags_idx";--> statement-breakpoint
DROP INDEX "media_search_idx";--> statement-breakpoint
CREATE INDEX "publications_platforms_idx" ON "publications" USING gin ("platforms") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "media_tags_idx" ON "media" USING gin ("workspace_id","tags") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "media_search_idx" ON "media" USING gin ("workspace_id","search_text" gin_trgm_ops) WITH (fastupdate=false);
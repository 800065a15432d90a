DROP INDEX "outbound_events_workspace_idx";--> statement-breakpoint
CREATE INDEX "outbound_events_created_idx" ON "outbound_events" USING btree ("created_at");
DROP INDEX "inbound_messages_workspace_idx";--> statement-breakpoint
DROP INDEX "inbound_messages_account_idx";--> statement-breakpoint
DROP INDEX "publications_workspace_created_idx";--> statement-breakpoint
DROP INDEX "publications_workspace_status_idx";--> statement-breakpoint
DROP INDEX "publications_workspace_profile_idx";--> statement-breakpoint
CREATE INDEX "inbound_messages_workspace_idx" ON "inbound_messages" USING btree ("workspace_id","sent_at","id");--> statement-breakpoint
CREATE INDEX "inbound_messages_account_idx" ON "inbound_messages" USING btree ("social_account_id","sent_at","id");--> statement-breakpoint
CREATE INDEX "publications_workspace_created_idx" ON "publications" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "publications_workspace_status_idx" ON "publications" USING btree ("workspace_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "publications_workspace_profile_idx" ON "publications" USING btree ("workspace_id","content_profile","created_at","id");
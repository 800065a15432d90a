CREATE TABLE "retention_watermarks" (
	"sweep" text PRIMARY KEY NOT NULL,
	"position_at" timestamp (3) with time zone NOT NULL,
	"position_id" text NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "provider_cost_monthly_totals" (
	"workspace_id" text NOT NULL,
	"month" timestamp (3) with time zone NOT NULL,
	"provider" text NOT NULL,
	"operation" text NOT NULL,
	"status" text NOT NULL,
	"events" bigint NOT NULL,
	"units" bigint NOT NULL,
	"cost_microusd" bigint NOT NULL,
	CONSTRAINT "provider_cost_monthly_totals_workspace_id_month_provider_operation_status_pk" PRIMARY KEY("workspace_id","month","provider","operation","status")
);
--> statement-breakpoint
DROP INDEX "audit_events_workspace_idx";--> statement-breakpoint
DROP INDEX "audit_events_actor_idx";--> statement-breakpoint
DROP INDEX "audit_events_action_idx";--> statement-breakpoint
ALTER TABLE "provider_cost_monthly_totals" ADD CONSTRAINT "provider_cost_monthly_totals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_occurred_idx" ON "audit_events" USING btree ("occurred_at","seq");--> statement-breakpoint
CREATE INDEX "analytics_measurements_collected_idx" ON "analytics_measurements" USING btree ("collected_at","id");--> statement-breakpoint
CREATE INDEX "delivery_attempts_started_idx" ON "delivery_attempts" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "provider_cost_events_created_idx" ON "provider_cost_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "repost_activity_at_idx" ON "repost_activity" USING btree ("at");--> statement-breakpoint
CREATE INDEX "repost_attempts_created_idx" ON "repost_attempts" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "audit_events_workspace_idx" ON "audit_events" USING btree ("workspace_id","occurred_at","seq");--> statement-breakpoint
CREATE INDEX "audit_events_actor_idx" ON "audit_events" USING btree ("actor_user_id","occurred_at","seq");--> statement-breakpoint
CREATE INDEX "audit_events_action_idx" ON "audit_events" USING btree ("action","occurred_at","seq");
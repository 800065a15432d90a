CREATE TABLE "repost_activity" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"policy_id" text,
	"rendition_id" text,
	"target_account_id" text,
	"stage" integer NOT NULL,
	"action" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"external_id" text,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repost_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"policy_id" text NOT NULL,
	"rendition_id" text NOT NULL,
	"target_account_id" text NOT NULL,
	"stage" integer NOT NULL,
	"unrepost_previous" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"reason" text NOT NULL,
	"external_id" text,
	"error_code" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"unreposted_at" timestamp (3) with time zone,
	CONSTRAINT "repost_attempts_stage_check" CHECK ("repost_attempts"."stage" >= 0 and "repost_attempts"."stage" < 16)
);
--> statement-breakpoint
CREATE TABLE "repost_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"source_workspace_id" text NOT NULL,
	"target_workspace_id" text NOT NULL,
	"target_account_id" text NOT NULL,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repost_policies" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"rule" jsonb NOT NULL,
	"source_account_ids" text[] NOT NULL,
	"target_account_ids" text[] NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "repost_activity" ADD CONSTRAINT "repost_activity_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_attempts" ADD CONSTRAINT "repost_attempts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_attempts" ADD CONSTRAINT "repost_attempts_policy_id_repost_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."repost_policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_attempts" ADD CONSTRAINT "repost_attempts_rendition_id_renditions_id_fk" FOREIGN KEY ("rendition_id") REFERENCES "public"."renditions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_attempts" ADD CONSTRAINT "repost_attempts_target_account_id_social_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."social_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_grants" ADD CONSTRAINT "repost_grants_source_workspace_id_workspaces_id_fk" FOREIGN KEY ("source_workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_grants" ADD CONSTRAINT "repost_grants_target_workspace_id_workspaces_id_fk" FOREIGN KEY ("target_workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_grants" ADD CONSTRAINT "repost_grants_target_account_id_social_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."social_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_grants" ADD CONSTRAINT "repost_grants_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_policies" ADD CONSTRAINT "repost_policies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repost_policies" ADD CONSTRAINT "repost_policies_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "repost_activity_workspace_idx" ON "repost_activity" USING btree ("workspace_id","at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "repost_attempts_key" ON "repost_attempts" USING btree ("rendition_id","policy_id","target_account_id","stage");--> statement-breakpoint
CREATE INDEX "repost_attempts_policy_idx" ON "repost_attempts" USING btree ("policy_id","rendition_id");--> statement-breakpoint
CREATE UNIQUE INDEX "repost_grants_account_workspace_key" ON "repost_grants" USING btree ("target_account_id","source_workspace_id");--> statement-breakpoint
CREATE INDEX "repost_grants_source_idx" ON "repost_grants" USING btree ("source_workspace_id");--> statement-breakpoint
CREATE INDEX "repost_grants_target_ws_idx" ON "repost_grants" USING btree ("target_workspace_id");--> statement-breakpoint
CREATE INDEX "repost_policies_workspace_idx" ON "repost_policies" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "repost_policies_enabled_idx" ON "repost_policies" USING btree ("id") WHERE "repost_policies"."enabled";
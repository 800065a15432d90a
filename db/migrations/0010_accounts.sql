CREATE TABLE "inbound_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"social_account_id" text NOT NULL,
	"platform" text NOT NULL,
	"external_id" text NOT NULL,
	"kind" text NOT NULL,
	"author_handle" text NOT NULL,
	"text" text NOT NULL,
	"url" text,
	"in_reply_to_external_id" text,
	"sent_at" timestamp (3) with time zone NOT NULL,
	"collected_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "social_accounts" ADD COLUMN "account_kind" text DEFAULT 'personal' NOT NULL;--> statement-breakpoint
ALTER TABLE "social_accounts" ADD COLUMN "text_limit" integer;--> statement-breakpoint
ALTER TABLE "social_accounts" ADD COLUMN "messages_collected_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "social_accounts" ADD COLUMN "messages_error_code" text;--> statement-breakpoint
ALTER TABLE "social_accounts" ADD COLUMN "disconnected_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD CONSTRAINT "inbound_messages_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD CONSTRAINT "inbound_messages_social_account_id_social_accounts_id_fk" FOREIGN KEY ("social_account_id") REFERENCES "public"."social_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_messages_account_external_key" ON "inbound_messages" USING btree ("social_account_id","external_id");--> statement-breakpoint
CREATE INDEX "inbound_messages_workspace_idx" ON "inbound_messages" USING btree ("workspace_id","sent_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "inbound_messages_account_idx" ON "inbound_messages" USING btree ("social_account_id","sent_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "social_accounts_provider_account_key" ON "social_accounts" USING btree ("workspace_id","platform","instance_url","external_account_id") WHERE "social_accounts"."external_account_id" is not null and "social_accounts"."disconnected_at" is null;
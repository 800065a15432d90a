CREATE TABLE "plan_checkouts" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"subscription_id" text,
	"plan_id" text NOT NULL,
	"interval" text NOT NULL,
	"status" text NOT NULL,
	"provider_session_id" text,
	"checkout_url" text,
	"request_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	CONSTRAINT "plan_checkouts_status_check" CHECK ("plan_checkouts"."status" in ('open','completed','expired'))
);
--> statement-breakpoint
CREATE TABLE "provider_call_answers" (
	"cost_event_id" text PRIMARY KEY NOT NULL,
	"answer" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_events_kind_subject_id_pk" PRIMARY KEY("kind","subject_id"),
	CONSTRAINT "usage_events_kind_check" CHECK ("usage_events"."kind" in ('publication','build'))
);
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "provider_event_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "plan_checkouts" ADD CONSTRAINT "plan_checkouts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_checkouts" ADD CONSTRAINT "plan_checkouts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_checkouts" ADD CONSTRAINT "plan_checkouts_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_call_answers" ADD CONSTRAINT "provider_call_answers_cost_event_id_provider_cost_events_id_fk" FOREIGN KEY ("cost_event_id") REFERENCES "public"."provider_cost_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "plan_checkouts_session_key" ON "plan_checkouts" USING btree ("provider_session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "plan_checkouts_request_key" ON "plan_checkouts" USING btree ("organization_id","request_hash");--> statement-breakpoint
CREATE INDEX "usage_events_organization_idx" ON "usage_events" USING btree ("organization_id","kind","created_at");--> statement-breakpoint
CREATE OR REPLACE FUNCTION "herald_record_usage"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "usage_events" ("kind", "subject_id", "organization_id", "workspace_id", "created_at")
  SELECT TG_ARGV[0], NEW."id", w."organization_id", NEW."workspace_id", NEW."created_at"
  FROM "workspaces" w
  WHERE w."id" = NEW."workspace_id" AND w."organization_id" IS NOT NULL
  ON CONFLICT DO NOTHING;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "publications_usage" AFTER INSERT ON "publications" FOR EACH ROW EXECUTE FUNCTION "herald_record_usage"('publication');--> statement-breakpoint
CREATE TRIGGER "publication_builds_usage" AFTER INSERT ON "publication_builds" FOR EACH ROW EXECUTE FUNCTION "herald_record_usage"('build');--> statement-breakpoint
INSERT INTO "usage_events" ("kind", "subject_id", "organization_id", "workspace_id", "created_at")
SELECT 'publication', p."id", w."organization_id", p."workspace_id", p."created_at"
FROM "publications" p JOIN "workspaces" w ON w."id" = p."workspace_id"
WHERE w."organization_id" IS NOT NULL
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "usage_events" ("kind", "subject_id", "organization_id", "workspace_id", "created_at")
SELECT 'build', b."id", w."organization_id", b."workspace_id", b."created_at"
FROM "publication_builds" b JOIN "workspaces" w ON w."id" = b."workspace_id"
WHERE w."organization_id" IS NOT NULL
ON CONFLICT DO NOTHING;

CREATE TABLE "video_conflicts" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"number" integer NOT NULL,
	"name" text NOT NULL,
	"mutation_id" text NOT NULL,
	"base_revision" integer NOT NULL,
	"head_revision" integer NOT NULL,
	"operations" jsonb NOT NULL,
	"overlap_targets" text[] NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"resolution" text,
	"resolved_revision" integer,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"resolved_by" text,
	"resolved_at" timestamp (3) with time zone,
	CONSTRAINT "video_conflicts_state_check" CHECK ("video_conflicts"."state" in ('open','resolved'))
);
--> statement-breakpoint
CREATE TABLE "video_mutations" (
	"project_id" text NOT NULL,
	"mutation_id" text NOT NULL,
	"outcome" text NOT NULL,
	"revision" integer NOT NULL,
	"conflict_id" text,
	"overlap_targets" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "video_mutations_project_id_mutation_id_pk" PRIMARY KEY("project_id","mutation_id")
);
--> statement-breakpoint
CREATE TABLE "video_project_revisions" (
	"project_id" text NOT NULL,
	"revision" integer NOT NULL,
	"kind" text NOT NULL,
	"mutation_id" text,
	"base_revision" integer,
	"operations" jsonb NOT NULL,
	"inverse" jsonb NOT NULL,
	"snapshot" jsonb,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "video_project_revisions_project_id_revision_pk" PRIMARY KEY("project_id","revision")
);
--> statement-breakpoint
CREATE TABLE "video_projects" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"document" jsonb NOT NULL,
	"head_revision" integer DEFAULT 1 NOT NULL,
	"sync_status" text DEFAULT 'pending' NOT NULL,
	"attention_reason" text,
	"preview_object_key" text,
	"retention_expires_at" timestamp (3) with time zone,
	"trashed_at" timestamp (3) with time zone,
	"next_conflict_number" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"updated_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_revision_touches" (
	"project_id" text NOT NULL,
	"target" text NOT NULL,
	"revision" integer NOT NULL,
	"touches" text[] NOT NULL,
	CONSTRAINT "video_revision_touches_project_id_target_revision_pk" PRIMARY KEY("project_id","target","revision")
);
--> statement-breakpoint
ALTER TABLE "video_conflicts" ADD CONSTRAINT "video_conflicts_project_id_video_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."video_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_mutations" ADD CONSTRAINT "video_mutations_project_id_video_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."video_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_project_revisions" ADD CONSTRAINT "video_project_revisions_project_id_video_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."video_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_projects" ADD CONSTRAINT "video_projects_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_projects" ADD CONSTRAINT "video_projects_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_projects" ADD CONSTRAINT "video_projects_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_revision_touches" ADD CONSTRAINT "video_revision_touches_project_id_video_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."video_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "video_conflicts_project_name_key" ON "video_conflicts" USING btree ("project_id","name");--> statement-breakpoint
CREATE INDEX "video_conflicts_listing_idx" ON "video_conflicts" USING btree ("project_id","state","number");--> statement-breakpoint
CREATE INDEX "video_projects_workspace_idx" ON "video_projects" USING btree ("workspace_id","created_at");
ALTER TABLE "workspaces" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL;
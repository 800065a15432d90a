CREATE TABLE "media_usages" (
	"media_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"owner_type" text NOT NULL,
	"owner_id" text NOT NULL,
	"used_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "media_usages_media_id_owner_type_owner_id_pk" PRIMARY KEY("media_id","owner_type","owner_id")
);
--> statement-breakpoint
CREATE INDEX "media_usages_owner_idx" ON "media_usages" USING btree ("owner_type","owner_id");
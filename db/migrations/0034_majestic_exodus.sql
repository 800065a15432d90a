CREATE TABLE "upload_checkpoints" (
	"rendition_id" text NOT NULL,
	"media_key" text NOT NULL,
	"checkpoint" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upload_checkpoints_rendition_id_media_key_pk" PRIMARY KEY("rendition_id","media_key")
);
--> statement-breakpoint
ALTER TABLE "upload_checkpoints" ADD CONSTRAINT "upload_checkpoints_rendition_id_renditions_id_fk" FOREIGN KEY ("rendition_id") REFERENCES "public"."renditions"("id") ON DELETE cascade ON UPDATE no action;
CREATE TABLE "repost_evaluator_cursors" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"evaluated_at" timestamp (3) with time zone NOT NULL,
	"after_published_at" timestamp (3) with time zone,
	"after_rendition_id" text
);
--> statement-breakpoint
ALTER TABLE "repost_attempts" ALTER COLUMN "policy_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "publications" ADD COLUMN "repost_override" jsonb;--> statement-breakpoint
ALTER TABLE "repost_evaluator_cursors" ADD CONSTRAINT "repost_evaluator_cursors_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "publications_repost_custom_idx" ON "publications" USING btree ("workspace_id") WHERE "publications"."repost_override" ->> 'mode' = 'custom';--> statement-breakpoint
CREATE INDEX "renditions_repost_scan_idx" ON "renditions" USING btree ("workspace_id","published_at","id") WHERE "renditions"."status" = 'published';--> statement-breakpoint
CREATE UNIQUE INDEX "repost_attempts_override_key" ON "repost_attempts" USING btree ("rendition_id","target_account_id","stage") WHERE "repost_attempts"."policy_id" is null;--> statement-breakpoint
CREATE INDEX "repost_attempts_queued_target_idx" ON "repost_attempts" USING btree ("target_account_id","workspace_id") WHERE "repost_attempts"."status" = 'queued';--> statement-breakpoint
-- Policies written in the earlier CONTRACT §8 shape (match, thresholds, window_hours, plateau, stages[].delay_minutes,
-- unrepost_previous) get the SPEC's RepostRule. An `engagement` minimum (likes + reposts + replies) has no field of its
-- own: it becomes a likes minimum at least as high, which never reposts a post the old rule would not have. A plateau
-- now means no growth at all (max_growth_percent goes). Stage delays are counted as before: the first from
-- publication (delay_seconds 0), the others from the previous stage; unrepost_previous moves onto the later stages.
WITH "old" AS (
	SELECT "id", "rule" FROM "repost_policies" WHERE "rule" -> 'match' IS NOT NULL OR "rule" -> 'thresholds' IS NOT NULL OR "rule" -> 'window_hours' IS NOT NULL
), "converted" AS (
	SELECT o."id", jsonb_build_object(
		'threshold_mode', CASE WHEN o."rule" ->> 'match' = 'any' THEN 'any' ELSE 'all' END,
		'min_likes', greatest(t.likes, t.engagement),
		'min_reposts', t.reposts,
		'min_comments', t.replies,
		'min_views', t.views,
		'evaluation_window_seconds', least(greatest(coalesce((o."rule" ->> 'window_hours')::numeric, 24) * 3600, 3600), 604800)::bigint,
		'require_plateau', coalesce(jsonb_typeof(o."rule" -> 'plateau') = 'object', false),
		'plateau_checks', least(greatest(coalesce((o."rule" -> 'plateau' ->> 'checks')::numeric, 3), 2), 12)::int,
		'delay_seconds', 0,
		'stages', s.stages
	) AS "rule"
	FROM "old" o
	CROSS JOIN LATERAL (
		SELECT
			coalesce(max((x ->> 'min')::numeric) FILTER (WHERE x ->> 'metric' = 'likes'), 0)::bigint AS likes,
			coalesce(max((x ->> 'min')::numeric) FILTER (WHERE x ->> 'metric' = 'reposts'), 0)::bigint AS reposts,
			coalesce(max((x ->> 'min')::numeric) FILTER (WHERE x ->> 'metric' = 'replies'), 0)::bigint AS replies,
			coalesce(max((x ->> 'min')::numeric) FILTER (WHERE x ->> 'metric' = 'views'), 0)::bigint AS views,
			coalesce(max((x ->> 'min')::numeric) FILTER (WHERE x ->> 'metric' = 'engagement'), 0)::bigint AS engagement
		FROM jsonb_array_elements(CASE WHEN jsonb_typeof(o."rule" -> 'thresholds') = 'array' THEN o."rule" -> 'thresholds' ELSE '[]'::jsonb END) AS x
	) t
	CROSS JOIN LATERAL (
		SELECT coalesce(
			jsonb_agg(jsonb_build_object(
				'delay_seconds', least(greatest(coalesce((st ->> 'delay_minutes')::numeric, 0), 0) * 60, 2592000)::bigint,
				'unrepost_previous', n > 1 AND coalesce((o."rule" ->> 'unrepost_previous')::boolean, false)
			) ORDER BY n),
			'[{"delay_seconds": 0, "unrepost_previous": false}]'::jsonb
		) AS stages
		FROM jsonb_array_elements(CASE WHEN jsonb_typeof(o."rule" -> 'stages') = 'array' THEN o."rule" -> 'stages' ELSE '[]'::jsonb END) WITH ORDINALITY AS e(st, n)
	) s
)
UPDATE "repost_policies" p SET "rule" = c."rule" FROM "converted" c WHERE p."id" = c."id";

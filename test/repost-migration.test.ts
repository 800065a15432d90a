import { describe, expect, it } from "vitest";
import { RepostRuleInput } from "../lib/schemas/repost-rule";
import { migrationStatements, migrationTag, scratchDatabase } from "./helpers/scratch-database";

/**
 * Migration 0027 converts repost policies written in the earlier CONTRACT §8 shape (match, thresholds,
 * window_hours, plateau, stages[].delay_minutes, unrepost_previous) to the SPEC's RepostRule. The shared test
 * database has no such rows, so a scratch database on the same Postgres gets migrations 0000–0026, policies in
 * the old shape, then 0027.
 */
const db = scratchDatabase("repost");

const OLD: Record<string, unknown> = {
  // Everything the old shape could say: any-of with an engagement minimum, a plateau, two stages undoing.
  rpp_full: {
    match: "any",
    thresholds: [
      { metric: "likes", min: 5 },
      { metric: "engagement", min: 9 },
      { metric: "replies", min: 2 },
      { metric: "views", min: 100 },
    ],
    window_hours: 48,
    plateau: { checks: 4, max_growth_percent: 5 },
    stages: [{ delay_minutes: 10 }, { delay_minutes: 60 }],
    unrepost_previous: true,
  },
  // All-of, a reposts minimum, no plateau, one stage, the widest window.
  rpp_plain: { match: "all", thresholds: [{ metric: "reposts", min: 3 }], window_hours: 168, stages: [{ delay_minutes: 10_080 }], unrepost_previous: false },
  // No threshold at all (every post in the window qualified), the narrowest window.
  rpp_none: { match: "all", thresholds: [], window_hours: 1, stages: [{ delay_minutes: 0 }], unrepost_previous: true },
};

describe("migration 0027 (repost rules in the SPEC's shape)", () => {
  it("converts policies written in the old shape and leaves the new shape as it is", async () => {
    expect(migrationTag(27)).toBe("0027_repost_rule_spec_shape");
    await db.migrateBefore(27);

    await db.run(`INSERT INTO users (id, email, display_name) VALUES ('usr_a', 'a@example.test', 'A')`);
    await db.run(`INSERT INTO organizations (id, kind, owner_user_id) VALUES ('org_a', 'personal', 'usr_a')`);
    await db.run(`INSERT INTO workspaces (id, name, created_by, organization_id) VALUES ('wsp_1', 'One', 'usr_a', 'org_a')`);
    const values = Object.entries(OLD).map(([id, rule]) => `('${id}', 'wsp_1', '${id}', '${JSON.stringify(rule)}'::jsonb, '{}', '{}')`);
    await db.run(`INSERT INTO repost_policies (id, workspace_id, name, rule, source_account_ids, target_account_ids) VALUES ${values.join(", ")}`);

    await db.migrate(27);

    const rules = Object.fromEntries((await db.run(`SELECT id, rule FROM repost_policies ORDER BY id`)).map((r) => [r.id, r.rule]));
    const stage = (delay_seconds: number, unrepost_previous: boolean) => ({ delay_seconds, unrepost_previous });
    expect(rules).toEqual({
      rpp_full: {
        threshold_mode: "any",
        // engagement ≥ 9 becomes likes ≥ 9 (never more reposts than the old rule made).
        min_likes: 9,
        min_reposts: 0,
        min_comments: 2,
        min_views: 100,
        evaluation_window_seconds: 172_800,
        require_plateau: true,
        plateau_checks: 4,
        delay_seconds: 0,
        stages: [stage(600, false), stage(3600, true)],
      },
      rpp_plain: {
        threshold_mode: "all",
        min_likes: 0,
        min_reposts: 3,
        min_comments: 0,
        min_views: 0,
        evaluation_window_seconds: 604_800,
        require_plateau: false,
        plateau_checks: 3,
        delay_seconds: 0,
        stages: [stage(604_800, false)],
      },
      rpp_none: {
        threshold_mode: "all",
        min_likes: 0,
        min_reposts: 0,
        min_comments: 0,
        min_views: 0,
        evaluation_window_seconds: 3600,
        require_plateau: false,
        plateau_checks: 3,
        delay_seconds: 0,
        stages: [stage(0, false)],
      },
    });
    // What an old rule could say lands within the new ranges (a rule with no minimum aside, which the API no longer takes).
    expect(RepostRuleInput.safeParse(rules.rpp_full).success).toBe(true);
    expect(RepostRuleInput.safeParse(rules.rpp_plain).success).toBe(true);

    // Running the conversion again changes nothing.
    const conversion = migrationStatements(27).at(-1)!;
    expect(conversion).toMatch(/^-- Policies written in the earlier/);
    await db.run(conversion);
    expect(Object.fromEntries((await db.run(`SELECT id, rule FROM repost_policies ORDER BY id`)).map((r) => [r.id, r.rule]))).toEqual(rules);

    // An attempt of a publication's own rule has no policy; its own unique key keeps it once.
    const cols = await db.run(`SELECT is_nullable FROM information_schema.columns WHERE table_name = 'repost_attempts' AND column_name = 'policy_id'`);
    expect(cols).toEqual([{ is_nullable: "YES" }]);
    const override = await db.run(`SELECT data_type FROM information_schema.columns WHERE table_name = 'publications' AND column_name = 'repost_override'`);
    expect(override).toEqual([{ data_type: "jsonb" }]);
  });
});

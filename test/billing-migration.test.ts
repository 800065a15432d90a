import { describe, expect, it } from "vitest";
import { migrationTag, scratchDatabase } from "./helpers/scratch-database";

/**
 * Migration 0019 on a database that already holds users and workspaces (the shared test database starts
 * empty, so the backfill is exercised here): a scratch database on the same Postgres gets migrations
 * 0000–0018, some rows, then 0019.
 */
const db = scratchDatabase("billing");

describe("migration 0019 (organizations)", () => {
  it("gives every existing user a personal organization and every workspace its creator's", async () => {
    expect(migrationTag(19)).toMatch(/^0019_/);
    await db.migrateBefore(19);

    await db.run(
      `INSERT INTO users (id, email, display_name) VALUES ('usr_a', 'a@example.test', 'A'), ('usr_b', 'b@example.test', 'B'), ('usr_c', 'c@example.test', 'C')`,
    );
    await db.run(`INSERT INTO workspaces (id, name, created_by) VALUES ('wsp_1', 'One', 'usr_a'), ('wsp_2', 'Two', 'usr_a'), ('wsp_3', 'Three', 'usr_b')`);
    await db.run(
      `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ('wsp_1', 'usr_a', 'owner'), ('wsp_2', 'usr_a', 'owner'), ('wsp_3', 'usr_b', 'owner'), ('wsp_3', 'usr_c', 'editor')`,
    );

    await db.migrate(19);

    const orgs = await db.run(`SELECT id, kind, owner_user_id FROM organizations ORDER BY owner_user_id`);
    expect(orgs.map((o) => [o.kind, o.owner_user_id])).toEqual([
      ["personal", "usr_a"],
      ["personal", "usr_b"],
      ["personal", "usr_c"],
    ]);
    for (const o of orgs) expect(o.id).toMatch(/^org_[0-9a-f]{24}$/);
    const members = await db.run(`SELECT organization_id, user_id, role FROM organization_members ORDER BY user_id`);
    expect(members).toEqual(orgs.map((o) => ({ organization_id: o.id, user_id: o.owner_user_id, role: "owner" })));
    const ws = await db.run(`SELECT w.id, o.owner_user_id FROM workspaces w JOIN organizations o ON o.id = w.organization_id ORDER BY w.id`);
    expect(ws).toEqual([
      { id: "wsp_1", owner_user_id: "usr_a" },
      { id: "wsp_2", owner_user_id: "usr_a" },
      { id: "wsp_3", owner_user_id: "usr_b" },
    ]);
    const nullable = (
      await db.run(`SELECT is_nullable FROM information_schema.columns WHERE table_name = 'workspaces' AND column_name = 'organization_id'`)
    )[0];
    expect(nullable.is_nullable).toBe("NO");
    await expect(db.run(`INSERT INTO workspaces (id, name, created_by) VALUES ('wsp_4', 'Orphan', 'usr_c')`)).rejects.toThrow(/organization_id/);
  });
});

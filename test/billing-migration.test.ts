import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "./helpers/harness";

/**
 * Migration 0019 on a database that already holds users and workspaces (the shared test database starts
 * empty, so the backfill is exercised here): a scratch database on the same Postgres gets migrations
 * 0000–0018, some rows, then 0019.
 */
const MIGRATIONS = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../db/migrations");
const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS, "meta/_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };
const statements = (tag: string) =>
  fs
    .readFileSync(path.join(MIGRATIONS, `${tag}.sql`), "utf8")
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter(Boolean);

const scratch = `herald_mig_${Date.now().toString(36)}`;
const admin = new pg.Pool({ max: 1, connectionString: env.DATABASE_URL });
let client: InstanceType<typeof pg.Pool>;
// Rows as objects (local/pg.d.ts types only what local/ uses).
type Row = Record<string, string>;
const run = async (pool: InstanceType<typeof pg.Pool>, text: string) => (await pool.query({ text })).rows as unknown as Row[];

beforeAll(async () => {
  await run(admin, `CREATE DATABASE ${scratch}`);
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${scratch}`;
  client = new pg.Pool({ max: 1, connectionString: url.toString() });
});

afterAll(async () => {
  await client?.end();
  await run(admin, `DROP DATABASE IF EXISTS ${scratch}`);
  await admin.end();
});

describe("migration 0019 (organizations)", () => {
  it("gives every existing user a personal organization and every workspace its creator's", async () => {
    const before = journal.entries.filter((e) => e.idx < 19);
    const billing = journal.entries.find((e) => e.idx === 19)!;
    expect(billing.tag).toMatch(/^0019_/);
    for (const entry of before) for (const s of statements(entry.tag)) await run(client, s);

    await run(
      client,
      `INSERT INTO users (id, email, display_name) VALUES ('usr_a', 'a@example.test', 'A'), ('usr_b', 'b@example.test', 'B'), ('usr_c', 'c@example.test', 'C')`,
    );
    await run(client, `INSERT INTO workspaces (id, name, created_by) VALUES ('wsp_1', 'One', 'usr_a'), ('wsp_2', 'Two', 'usr_a'), ('wsp_3', 'Three', 'usr_b')`);
    await run(
      client,
      `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ('wsp_1', 'usr_a', 'owner'), ('wsp_2', 'usr_a', 'owner'), ('wsp_3', 'usr_b', 'owner'), ('wsp_3', 'usr_c', 'editor')`,
    );

    for (const s of statements(billing.tag)) await run(client, s);

    const orgs = await run(client, `SELECT id, kind, owner_user_id FROM organizations ORDER BY owner_user_id`);
    expect(orgs.map((o) => [o.kind, o.owner_user_id])).toEqual([
      ["personal", "usr_a"],
      ["personal", "usr_b"],
      ["personal", "usr_c"],
    ]);
    for (const o of orgs) expect(o.id).toMatch(/^org_[0-9a-f]{24}$/);
    const members = await run(client, `SELECT organization_id, user_id, role FROM organization_members ORDER BY user_id`);
    expect(members).toEqual(orgs.map((o) => ({ organization_id: o.id, user_id: o.owner_user_id, role: "owner" })));
    const ws = await run(client, `SELECT w.id, o.owner_user_id FROM workspaces w JOIN organizations o ON o.id = w.organization_id ORDER BY w.id`);
    expect(ws).toEqual([
      { id: "wsp_1", owner_user_id: "usr_a" },
      { id: "wsp_2", owner_user_id: "usr_a" },
      { id: "wsp_3", owner_user_id: "usr_b" },
    ]);
    const nullable = (
      await run(client, `SELECT is_nullable FROM information_schema.columns WHERE table_name = 'workspaces' AND column_name = 'organization_id'`)
    )[0];
    expect(nullable.is_nullable).toBe("NO");
    await expect(run(client, `INSERT INTO workspaces (id, name, created_by) VALUES ('wsp_4', 'Orphan', 'usr_c')`)).rejects.toThrow(/organization_id/);
  });
});

import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { env } from "./harness";

// Rows as objects (local/pg.d.ts types only what local/ uses).
export type Row = Record<string, unknown>;

const MIGRATIONS = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../db/migrations");
const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS, "meta/_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };

/** The tag (file name) of migration `idx` in drizzle-kit's journal. */
export function migrationTag(idx: number): string {
  const entry = journal.entries.find((e) => e.idx === idx);
  if (!entry) throw new Error(`no migration ${idx} in the journal`);
  return entry.tag;
}

/** The statements of migration `idx`, as drizzle-kit wrote them. */
export function migrationStatements(idx: number): string[] {
  return fs
    .readFileSync(path.join(MIGRATIONS, `${migrationTag(idx)}.sql`), "utf8")
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * A database of its own on the test Postgres, for a migration test that needs rows written before the migration
 * (the shared test database is migrated to the end and starts empty): created before the file's tests, dropped
 * after. `migrateBefore(n)` applies migrations 0000 … n−1, `migrate(n)` applies migration n.
 */
export function scratchDatabase(name: string) {
  const database = `herald_mig_${name}_${Date.now().toString(36)}`;
  const admin = new pg.Pool({ max: 1, connectionString: env.DATABASE_URL });
  let client: InstanceType<typeof pg.Pool> | undefined;
  const query = async (pool: InstanceType<typeof pg.Pool>, text: string) => (await pool.query({ text })).rows as unknown as Row[];

  beforeAll(async () => {
    await query(admin, `CREATE DATABASE ${database}`);
    const url = new URL(env.DATABASE_URL);
    url.pathname = `/${database}`;
    client = new pg.Pool({ max: 1, connectionString: url.toString() });
  });
  afterAll(async () => {
    await client?.end();
    await query(admin, `DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  });

  const run = (text: string) => {
    if (!client) throw new Error("the scratch database is made in beforeAll");
    return query(client, text);
  };
  return {
    run,
    async migrateBefore(idx: number) {
      for (const entry of journal.entries.filter((e) => e.idx < idx)) for (const s of migrationStatements(entry.idx)) await run(s);
    },
    async migrate(idx: number) {
      for (const s of migrationStatements(idx)) await run(s);
    },
  };
}

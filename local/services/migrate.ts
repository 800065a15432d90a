import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/neon-serverless/migrator";
import "../../lib/db/node";
import { openDb } from "../../lib/db/client";
import type { Env } from "../../lib/env";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../db/migrations");

/** Apply every pending drizzle-kit migration; safe to run at each start. */
export async function applyMigrations(env: Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY">): Promise<void> {
  const { db, close } = openDb(env);
  try {
    await migrate(db, { migrationsFolder: MIGRATIONS });
  } finally {
    await close();
  }
}

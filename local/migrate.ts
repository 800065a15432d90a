// Apply the database migrations to DATABASE_URL (for a deployment: the Neon database).
// `npm start` and the tests apply them on their own. Run: DATABASE_URL=… npx tsx local/migrate.ts
import { applyMigrations } from "./services/migrate";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("Set DATABASE_URL to the database to migrate.");
  process.exit(2);
}
await applyMigrations({ DATABASE_URL: url, NEON_WS_PROXY: process.env.NEON_WS_PROXY });
console.log("Migrations applied.");

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { randomText } from "../../lib/ids";

/** Read a secret kept in a file, or create it (mode 0600) with `make()`. */
export function keptSecret(file: string, make: () => string): { value: string; created: boolean } {
  if (fs.existsSync(file)) {
    const value = fs.readFileSync(file, "utf8").trim();
    if (value) {
      // Tighten a file someone loosened.
      if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
      return { value, created: false };
    }
  }
  const value = make();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, value + "\n", { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return { value, created: true };
}

/** INSTANCE_SECRET_KEY when none is given: 32 random bytes, base64, kept in DATA_DIR/instance-secret-key. */
export function instanceSecretKey(dataDir: string): { value: string; created: boolean; file: string } {
  const file = path.join(dataDir, "instance-secret-key");
  return { ...keptSecret(file, () => crypto.randomBytes(32).toString("base64")), file };
}

/** The generated bootstrap administrator's token, kept in DATA_DIR/bootstrap-token (same shape as issued tokens). */
export function bootstrapToken(dataDir: string): { value: string; created: boolean; file: string } {
  const file = path.join(dataDir, "bootstrap-token");
  return { ...keptSecret(file, () => `hld_${randomText(40)}`), file };
}

/** The embedded Postgres's superuser password: random per DATA_DIR, kept in DATA_DIR/postgres-password. */
export function postgresPassword(dataDir: string): { value: string; created: boolean; file: string } {
  const file = path.join(dataDir, "postgres-password");
  return { ...keptSecret(file, () => crypto.randomBytes(24).toString("base64url")), file };
}

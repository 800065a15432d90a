import { eq, inArray, sql } from "drizzle-orm";
import { instanceSettings } from "../../db/schema";
import { logEvent } from "../log";
import type { Queryable } from "../db/client";
import { findSetting } from "./catalogue";
import { open, seal, type KeyRing } from "./secret-box";

export interface SavedSetting {
  key: string;
  /** The plaintext; null for a secret that no key of the ring opens any more. */
  value: string | null;
  updatedAt: Date;
}

/** Every saved setting of a known key (secrets opened), by key. Unknown keys left by older versions are ignored. */
export async function loadSaved(q: Queryable, ring: KeyRing): Promise<Map<string, SavedSetting>> {
  return openRows(await q.select().from(instanceSettings).limit(500), ring);
}

/** The saved settings of these keys only (one query), as loadSaved reads them. */
export async function loadSavedKeys(q: Queryable, ring: KeyRing, keys: readonly string[]): Promise<Map<string, SavedSetting>> {
  if (keys.length === 0) return new Map();
  return openRows(
    await q
      .select()
      .from(instanceSettings)
      .where(inArray(instanceSettings.key, [...keys])),
    ring,
  );
}

async function openRows(rows: (typeof instanceSettings.$inferSelect)[], ring: KeyRing): Promise<Map<string, SavedSetting>> {
  const saved = new Map<string, SavedSetting>();
  for (const row of rows) {
    const def = findSetting(row.key);
    if (!def) continue;
    let value = row.value;
    if (def.secret) {
      value = row.ciphertext ? await open(ring, { ciphertext: row.ciphertext, keyId: row.keyId }) : null;
      if (value === null) logEvent("warn", "secret setting cannot be opened with the current keys", { key: row.key, key_id: row.keyId });
    }
    saved.set(row.key, { key: row.key, value, updatedAt: row.updatedAt });
  }
  return saved;
}

/** Save (or with `""` clear) one setting inside the caller's transaction. Returns whether anything changed. */
export async function saveSetting(
  tx: Queryable,
  ring: KeyRing,
  key: string,
  value: string,
  actorUserId: string,
  previous: SavedSetting | undefined,
): Promise<boolean> {
  const def = findSetting(key);
  if (!def) throw new Error(`unknown setting ${key}`);
  if (value === "") {
    if (!previous) return false;
    await tx.delete(instanceSettings).where(eq(instanceSettings.key, key));
    return true;
  }
  if (previous?.value === value) return false;
  const stored = def.secret ? { value: null, ...(await seal(ring, value)) } : { value, ciphertext: null, keyId: null };
  await tx
    .insert(instanceSettings)
    .values({ key, ...stored, updatedBy: actorUserId })
    .onConflictDoUpdate({ target: instanceSettings.key, set: { ...stored, updatedBy: actorUserId, updatedAt: sql`now()` } });
  return true;
}

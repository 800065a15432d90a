import type { Env } from "../env";
import type { Queryable } from "../db/client";
import { envVarOf, findSetting } from "./catalogue";
import { loadSaved, type SavedSetting } from "./store";

/**
 * The settings in force: read once per isolate (at its start, on first use) and kept until it restarts, as
 * SPEC.md 4.11 says saved changes take effect after a restart. Settings that decide money (`live`) are not
 * read here but with lib/settings/live.ts, on every use. A restart of `npm start` (a new workerd) or a
 * deploy therefore picks saved values up; an environment variable of the same name, upper case, always wins.
 */
export interface SettingsInForce {
  get(key: string): string | undefined;
  flag(key: string): boolean;
  source(key: string): "environment" | "database" | "default";
  /** The saved values as they were read at start (for telling what a restart would change). */
  readonly savedAtStart: ReadonlyMap<string, SavedSetting>;
}

const loaded = new Map<string, Promise<ReadonlyMap<string, SavedSetting>>>();

export const envValue = (env: Env, key: string): string | undefined => {
  const value = (env as unknown as Record<string, unknown>)[envVarOf(key)];
  return typeof value === "string" && value !== "" ? value : undefined;
};

export async function settingsInForce(env: Env, q: Queryable): Promise<SettingsInForce> {
  const cacheKey = env.DATABASE_URL ?? "";
  let pending = loaded.get(cacheKey);
  if (!pending) {
    pending = loadSaved(q, env);
    loaded.set(cacheKey, pending);
    // A failed read (database down) is not remembered: the next request tries again.
    pending.catch(() => loaded.delete(cacheKey));
  }
  const saved = await pending;
  const get = (key: string) => {
    const def = findSetting(key);
    if (!def) throw new Error(`unknown setting ${key}`);
    // A stale per-isolate copy of a setting that decides money is exactly what `live` settings avoid.
    if (def.live) throw new Error(`${key} is read per request (lib/settings/live.ts)`);
    return envValue(env, key) ?? saved.get(key)?.value ?? undefined;
  };
  return {
    get,
    flag: (key) => get(key) === "true",
    source: (key) => (envValue(env, key) !== undefined ? "environment" : saved.get(key)?.value != null ? "database" : "default"),
    savedAtStart: saved,
  };
}

/** Forget what was read at start, as a restart does (tests). */
export function forgetSettingsInForce(): void {
  loaded.clear();
}

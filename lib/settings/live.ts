import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { findSetting } from "./catalogue";
import { envValue } from "./in-force";
import { loadSavedKeys } from "./store";

/**
 * Settings that decide money (catalogue `live: true`: billing on or off, Stripe's keys and base URL), read on
 * every call: an administrator's change applies to every Worker at once, never after each isolate happens to
 * restart. One query for the keys asked (none when the environment sets them all; an environment variable wins).
 */
export interface LiveSettings {
  get(key: string): string | undefined;
  flag(key: string): boolean;
}

export async function liveSettings(env: Env, q: Queryable, keys: readonly string[]): Promise<LiveSettings> {
  for (const key of keys) if (!findSetting(key)?.live) throw new Error(`${key} is not a live setting`);
  const fromDb = keys.filter((k) => envValue(env, k) === undefined);
  const saved = await loadSavedKeys(q, env, fromDb);
  const get = (key: string) => {
    if (!keys.includes(key)) throw new Error(`${key} was not read`);
    return envValue(env, key) ?? saved.get(key)?.value ?? undefined;
  };
  return { get, flag: (key) => get(key) === "true" };
}

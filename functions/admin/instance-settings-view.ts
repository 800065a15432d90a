import type { Env } from "../../lib/env";
import { envVarOf, SETTINGS } from "../../lib/settings";
import { envValue, type SettingsInForce } from "../../lib/settings/in-force";
import type { SavedSetting } from "../../lib/settings/store";

/**
 * SPEC.md 2.11 InstanceSetting for every known key. `value` is what will be in force after a restart
 * (always "" for a secret); `requires_restart` says a saved change waits for one.
 */
export function presentSettings(env: Env, inForce: SettingsInForce, savedNow: ReadonlyMap<string, SavedSetting>) {
  const settings = SETTINGS.map((def) => {
    const fromEnv = envValue(env, def.key);
    const saved = savedNow.get(def.key);
    const savedValue = saved?.value ?? null;
    const atStart = inForce.savedAtStart.get(def.key)?.value ?? null;
    const pending = fromEnv === undefined && savedValue !== atStart;
    const current = fromEnv ?? savedValue ?? "";
    return {
      key: def.key,
      label: def.label,
      description: def.description,
      group: def.group,
      type: def.type,
      value: def.secret ? "" : current,
      options: def.options,
      source: fromEnv !== undefined ? "environment" : savedValue !== null ? "database" : "default",
      environment_variables: [envVarOf(def.key)],
      managed_by: fromEnv !== undefined ? "environment" : null,
      configured: current !== "",
      database_override_configured: saved !== undefined,
      editable: fromEnv === undefined,
      optional: true,
      // A setting read on every use (billing's) applies at once; the others wait for a restart.
      requires_restart: pending && !def.live,
      secret: def.secret,
      secret_configured: def.secret && current !== "",
      updated_at: saved ? saved.updatedAt.toISOString() : null,
    };
  });
  return { requires_restart: settings.some((s) => s.requires_restart), settings };
}

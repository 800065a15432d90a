import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError, type FieldError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { allowPrivateUrls } from "../../lib/accounts/account-context";
import { checkValue, envVarOf, findSetting, settingsInForce } from "../../lib/settings";
import { envValue } from "../../lib/settings/in-force";
import { loadSaved, saveSetting } from "../../lib/settings/store";
import { presentSettings } from "./instance-settings-view";
import { InstanceSettingsResponse } from "./schemas";
import { instanceAdmin } from "../../lib/http/access";

/** CONTRACT.md §6: `settings: [{key, value}]`, all or nothing; `value: ""` clears a saved value (a secret too). */
export const UpdateInstanceSettingsRequest = z
  .object({
    settings: z
      .array(
        z
          .object({
            key: z.string().min(1).max(100).openapi({ example: "ai_model" }),
            value: z.string().max(10_000).openapi({ description: 'The new value as a string; `""` clears the saved value' }),
          })
          .openapi("InstanceSettingInput"),
      )
      .min(1)
      .max(100),
  })
  .openapi("UpdateInstanceSettingsRequest");

export const route = createRoute({
  method: "put",
  path: "/admin/instance-settings",
  operationId: "updateInstanceSettings",
  tags: ["admin"],
  summary: "Validate and save instance settings (instance administrators)",
  description:
    "All or nothing: an unknown key or invalid value answers 422 naming `body.settings[i]…` and saves nothing. Secrets are stored encrypted (AES-GCM, with the id of the key) and never returned. Changes take effect after a restart: `requires_restart` says one is waiting.",
  request: { body: jsonBody(UpdateInstanceSettingsRequest) },
  responses: { 200: jsonResponse(InstanceSettingsResponse, "Every setting after the save"), ...problems(400, 401, 403, 413, 422) },
});

function validate(c: Parameters<RouteHandler<typeof route, AppEnv>>[0], entries: { key: string; value: string }[]): void {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  entries.forEach(({ key, value }, i) => {
    const def = findSetting(key);
    if (!def) return void errors.push({ location: `body.settings[${i}].key`, message: "Unknown setting", value: key });
    if (seen.has(key)) return void errors.push({ location: `body.settings[${i}].key`, message: "Given twice", value: key });
    seen.add(key);
    if (envValue(c.env, key) !== undefined) {
      return void errors.push({
        location: `body.settings[${i}].key`,
        message: `Set by the environment variable ${envVarOf(key)}; change it there`,
        value: key,
      });
    }
    const problem = checkValue(def, value, { allowPrivateUrls: allowPrivateUrls(c.env) });
    // A secret's value is never echoed back, not even in an error.
    if (problem) errors.push({ location: `body.settings[${i}].value`, message: problem, ...(def.secret ? {} : { value }) });
  });
  if (errors.length) throw new ApiError("validation-error", { detail: `${errors.length} setting(s) refused; nothing was saved.`, errors });
}

export const access = instanceAdmin();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { settings } = c.req.valid("json");
  validate(c, settings);
  const actor = currentUser(c);
  // What is in force is read before saving, so the answer can tell what now waits for a restart.
  const inForce = await settingsInForce(c.env, db(c));
  const savedNow = await db(c).transaction(async (tx) => {
    // One save at a time, so each answer and audit trail describes exactly its own change.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('herald.instance_settings'))`);
    const before = await loadSaved(tx, c.env);
    for (const { key, value } of settings) {
      if (await saveSetting(tx, c.env, key, value, actor.id, before.get(key))) {
        await audit(tx, { ...auditActor(c), action: value === "" ? "settings.clear" : "settings.save", targetType: "instance_setting", targetId: key });
      }
    }
    return loadSaved(tx, c.env);
  });
  return c.json(withSchema(c, InstanceSettingsResponse, presentSettings(c.env, inForce, savedNow)), 200);
};

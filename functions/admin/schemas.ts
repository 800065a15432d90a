import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { knownValue, OptionalTimestamp } from "../../lib/schemas/common";

/** SPEC.md 2.11 InstanceSetting. Secrets always come back with `value: ""` (CONTRACT.md §6). */
export const InstanceSetting = z
  .object({
    key: z.string().openapi({ example: "public_base_url" }),
    label: z.string(),
    description: z.string(),
    group: z.string(),
    type: knownValue("boolean", "Value type"),
    value: z.string().openapi({ description: "The current value; always empty for secrets" }),
    options: z.array(z.object({ label: z.string(), value: z.string() }).openapi("InstanceSettingOption")),
    source: knownValue("environment", "Where the current value comes from"),
    environment_variables: z.array(z.string()).openapi({ description: "Variables that set this key" }),
    managed_by: z.string().nullable(),
    configured: z.boolean(),
    database_override_configured: z.boolean(),
    editable: z.boolean(),
    optional: z.boolean(),
    requires_restart: z.boolean(),
    secret: z.boolean(),
    secret_configured: z.boolean(),
    updated_at: OptionalTimestamp,
  })
  .openapi("InstanceSetting");

/** SPEC.md 2.11 InstanceSettingsResponse. */
export const InstanceSettingsResponse = responseObject("InstanceSettingsResponse", {
  requires_restart: z.boolean().openapi({ description: "Whether saved changes wait for a restart" }),
  settings: z.array(InstanceSetting),
});

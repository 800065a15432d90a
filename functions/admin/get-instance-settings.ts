import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { settingsInForce } from "../../lib/settings";
import { loadSaved } from "../../lib/settings/store";
import { presentSettings } from "./instance-settings-view";
import { InstanceSettingsResponse } from "./schemas";
import { instanceAdmin } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/admin/instance-settings",
  operationId: "getInstanceSettings",
  tags: ["admin"],
  summary: "Every instance setting (instance administrators)",
  description: 'Every known key, with where its value comes from (`environment`, `database` or `default`). Secrets always come back with `value: ""`.',
  responses: { 200: jsonResponse(InstanceSettingsResponse, "Every setting"), ...problems(401, 403) },
});

export const access = instanceAdmin();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const inForce = await settingsInForce(c.env, db(c));
  const savedNow = await loadSaved(db(c), c.env);
  return c.json(withSchema(c, InstanceSettingsResponse, presentSettings(c.env, inForce, savedNow)), 200);
};

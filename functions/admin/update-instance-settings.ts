import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { requireInstanceAdmin } from "../../lib/http/auth";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { InstanceSettingsResponse } from "./schemas";

/** CONTRACT.md §6: `settings: [{key, value}]`, all or nothing; `value: ""` on a secret clears it. */
export const UpdateInstanceSettingsRequest = z
  .object({
    settings: z
      .array(
        z
          .object({
            key: z.string().min(1).max(100).openapi({ example: "public_base_url" }),
            value: z.string().max(10_000),
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
  tags: ["admin"],
  summary: "Validate and save instance settings (instance administrators)",
  description:
    "All or nothing: an unknown key or invalid value answers 422 naming `body.settings[i]…` and saves nothing. Secrets are stored encrypted. Changes take effect after a restart.",
  request: { body: jsonBody(UpdateInstanceSettingsRequest) },
  responses: { 200: jsonResponse(InstanceSettingsResponse, "Every setting after the save"), ...problems(400, 401, 403, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  requireInstanceAdmin(c);
  throw notImplemented("PUT /admin/instance-settings", "a later issue");
};

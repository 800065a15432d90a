import { eq, inArray } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { auditEvents, instanceSettings } from "../db/schema";
import { forgetSettingsInForce, settingsInForce, SETTINGS } from "../lib/settings";
import { keyIdOf } from "../lib/settings/secret-box";
import { api, env, expectProblem, newUser, withDb } from "./helpers/harness";

/**
 * Instance settings are global to the shared test database, so this file only touches keys no other test
 * relies on (ai_model, ai_api_key, stripe_api_base) and clears them when done.
 */
const KEYS = ["ai_model", "ai_api_key", "stripe_api_base"];
const SPEC_FIELDS = [
  "configured",
  "database_override_configured",
  "editable",
  "optional",
  "requires_restart",
  "secret",
  "secret_configured",
  "description",
  "group",
  "key",
  "label",
  "managed_by",
  "updated_at",
  "value",
  "environment_variables",
  "options",
  "source",
  "type",
];

afterAll(async () => {
  await withDb((db) => db.delete(instanceSettings).where(inArray(instanceSettings.key, KEYS)));
});

const byKey = (body: { settings: { key: string }[] }) => Object.fromEntries(body.settings.map((s) => [s.key, s as Record<string, unknown>]));

describe("instance settings", () => {
  it("lists every known key with every field of SPEC 2.11", async () => {
    const admin = await newUser({ isAdmin: true });
    const res = await api("GET", "/admin/instance-settings", { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.$schema).toMatch(/\/api\/v1\/schemas\/InstanceSettingsResponse\.json$/);
    expect(typeof res.body.requires_restart).toBe("boolean");
    expect(res.body.settings.map((s: { key: string }) => s.key)).toEqual(SETTINGS.map((s) => s.key));
    for (const s of res.body.settings) expect(Object.keys(s).sort()).toEqual([...SPEC_FIELDS].sort());
    const all = byKey(res.body);
    expect(all.ai_api_key).toMatchObject({ secret: true, value: "", environment_variables: ["AI_API_KEY"] });
    expect(all.billing_enabled.options).toEqual([
      { label: "On", value: "true" },
      { label: "Off", value: "false" },
    ]);
    // The test environment sets PUBLIC_BASE_URL: the environment wins and the key is not editable here.
    expect(all.public_base_url).toMatchObject({
      source: "environment",
      managed_by: "environment",
      editable: false,
      value: env.PUBLIC_BASE_URL,
      configured: true,
    });
  });

  it("only instance administrators may read or save (403)", async () => {
    const user = await newUser();
    expectProblem(await api("GET", "/admin/instance-settings", { token: user.token }), 403, "forbidden");
    expectProblem(await api("PUT", "/admin/instance-settings", { token: user.token, json: { settings: [{ key: "ai_model", value: "x" }] } }), 403, "forbidden");
    expectProblem(await api("GET", "/admin/instance-settings"), 401, "unauthorized");
  });

  it("saves plain and secret values; secrets are sealed with a key id and never returned; restart picks them up", async () => {
    const admin = await newUser({ isAdmin: true });
    const secret = `sk-zebra-${Date.now()}-plaintext`;
    forgetSettingsInForce();
    const saved = await api("PUT", "/admin/instance-settings", {
      token: admin.token,
      json: {
        settings: [
          { key: "ai_model", value: "llama-3.1-8b" },
          { key: "ai_api_key", value: secret },
        ],
      },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.text).not.toContain(secret);
    expect(saved.body.requires_restart).toBe(true);
    const after = byKey(saved.body);
    expect(after.ai_model).toMatchObject({
      value: "llama-3.1-8b",
      source: "database",
      database_override_configured: true,
      requires_restart: true,
      configured: true,
    });
    expect(after.ai_model.updated_at).toEqual(expect.stringMatching(/Z$/));
    expect(after.ai_api_key).toMatchObject({ value: "", secret_configured: true, source: "database", requires_restart: true });

    const rows = await withDb((db) =>
      db
        .select()
        .from(instanceSettings)
        .where(inArray(instanceSettings.key, ["ai_model", "ai_api_key"])),
    );
    const sealed = rows.find((r) => r.key === "ai_api_key")!;
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(sealed.value).toBeNull();
    expect(sealed.keyId).toBe(await keyIdOf(env.INSTANCE_SECRET_KEY!));
    expect(rows.find((r) => r.key === "ai_model")!.value).toBe("llama-3.1-8b");

    // Saving the same values again changes nothing and audits nothing.
    const events = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.actorUserId, admin.id)));
    expect(events.map((e) => [e.action, e.targetId]).sort()).toEqual([
      ["settings.save", "ai_api_key"],
      ["settings.save", "ai_model"],
    ]);
    expect(JSON.stringify(events)).not.toContain(secret);

    // A restart reads the saved values: in force, and nothing waits any more.
    forgetSettingsInForce();
    const inForce = await withDb((db) => settingsInForce(env, db));
    expect(inForce.get("ai_model")).toBe("llama-3.1-8b");
    expect(inForce.get("ai_api_key")).toBe(secret);
    expect(inForce.source("ai_api_key")).toBe("database");
    const listed = await api("GET", "/admin/instance-settings", { token: admin.token });
    expect(byKey(listed.body).ai_model.requires_restart).toBe(false);
    expect(listed.text).not.toContain(secret);

    // The environment wins over a saved value, and then the key cannot be saved here.
    const pinned = { ...env, AI_MODEL: "pinned-model" };
    const viaEnv = await gateway.request("/admin/instance-settings", { headers: { authorization: `Bearer ${admin.token}` } }, pinned);
    expect(byKey(await viaEnv.json()).ai_model).toMatchObject({
      value: "pinned-model",
      source: "environment",
      editable: false,
      database_override_configured: true,
    });
    const refused = await gateway.request(
      "/admin/instance-settings",
      {
        method: "PUT",
        headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
        body: JSON.stringify({ settings: [{ key: "ai_model", value: "x" }] }),
      },
      pinned,
    );
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: { location: string }[] }).errors[0].location).toBe("body.settings[0].key");

    // `""` clears, a secret too.
    const cleared = await api("PUT", "/admin/instance-settings", {
      token: admin.token,
      json: {
        settings: [
          { key: "ai_api_key", value: "" },
          { key: "ai_model", value: "" },
        ],
      },
    });
    expect(byKey(cleared.body).ai_api_key).toMatchObject({
      secret_configured: false,
      source: "default",
      database_override_configured: false,
      requires_restart: true,
    });
    forgetSettingsInForce();
  });

  it("is all or nothing: one bad entry → 422 naming body.settings[i], nothing saved", async () => {
    const admin = await newUser({ isAdmin: true });
    const secret = "short";
    const cases: [unknown, string][] = [
      [
        [
          { key: "stripe_api_base", value: "https://stripe.example.test" },
          { key: "no_such_key", value: "1" },
        ],
        "body.settings[1].key",
      ],
      [
        [
          { key: "stripe_api_base", value: "https://stripe.example.test" },
          { key: "media_max_bytes", value: "lots" },
        ],
        "body.settings[1].value",
      ],
      [[{ key: "stripe_api_base", value: "ftp://x" }], "body.settings[0].value"],
      [
        [
          { key: "stripe_api_base", value: "https://a.test" },
          { key: "stripe_api_base", value: "https://b.test" },
        ],
        "body.settings[1].key",
      ],
      [[{ key: "billing_enabled", value: "yes" }], "body.settings[0].value"],
      [[{ key: "ai_model", value: "a\u0001b" }], "body.settings[0].value"],
      [[{ key: "ai_api_key", value: secret }], "body.settings[0].value"],
      [[{ key: "media_max_bytes", value: "99999999999999999999" }], "body.settings[0].value"],
      [[{ key: "stripe_api_base", value: 5 }], "body.settings[0].value"],
    ];
    for (const [settings, location] of cases) {
      const res = await api("PUT", "/admin/instance-settings", { token: admin.token, json: { settings } });
      expectProblem(res, 422, "validation-error");
      expect(
        res.body.errors.map((e: { location: string }) => e.location),
        res.text,
      ).toContain(location);
    }
    // The secret's value is not echoed in the error.
    const secretErr = await api("PUT", "/admin/instance-settings", { token: admin.token, json: { settings: [{ key: "ai_api_key", value: "zz" }] } });
    expect(secretErr.body.errors[0]).not.toHaveProperty("value");
    for (const body of [{}, { settings: [] }, { settings: "x" }, []])
      expectProblem(await api("PUT", "/admin/instance-settings", { token: admin.token, json: body }), 422, "validation-error");
    expectProblem(
      await api("PUT", "/admin/instance-settings", { token: admin.token, body: "{", headers: { "content-type": "application/json" } }),
      400,
      "bad-request",
    );
    const rows = await withDb((db) => db.select().from(instanceSettings).where(eq(instanceSettings.key, "stripe_api_base")));
    expect(rows).toEqual([]);
  });
});

import { eq, inArray } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { auditEvents, instanceSettings } from "../db/schema";
import { forgetSettingsInForce, settingsInForce, SETTINGS } from "../lib/settings";
import { keyIdOf } from "../lib/settings/secret-box";
import { api, env, expectProblem as expectRawProblem, newUser, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { clientWithEnv, expectData, expectError, expectProblem, type Problem, type Schemas } from "./helpers/typed";

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

const byKey = (body: Schemas["InstanceSettingsResponse"]) => Object.fromEntries(body.settings.map((s) => [s.key, s]));
const list = (token?: string) => client(token).GET("/admin/instance-settings");
const save = (token: string, settings: Schemas["InstanceSettingInput"][]) => client(token).PUT("/admin/instance-settings", { body: { settings } });

describe("instance settings", () => {
  it("lists every known key with every field of SPEC 2.11", async () => {
    const admin = await newUser({ isAdmin: true });
    const res = expectData(await list(admin.token));
    expect(res.$schema).toMatch(/\/api\/v1\/schemas\/InstanceSettingsResponse\.json$/);
    expect(typeof res.requires_restart).toBe("boolean");
    expect(res.settings.map((s) => s.key)).toEqual(SETTINGS.map((s) => s.key));
    for (const s of res.settings) expect(Object.keys(s).sort()).toEqual([...SPEC_FIELDS].sort());
    const all = byKey(res);
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
    expectProblem(await list(user.token), 403, "forbidden");
    expectProblem(await save(user.token, [{ key: "ai_model", value: "x" }]), 403, "forbidden");
    expectProblem(await list(), 401, "unauthorized");
  });

  it("saves plain and secret values; secrets are sealed with a key id and never returned; restart picks them up", async () => {
    const admin = await newUser({ isAdmin: true });
    const secret = `sk-zebra-${Date.now()}-plaintext`;
    forgetSettingsInForce();
    const saved = expectData(
      await save(admin.token, [
        { key: "ai_model", value: "llama-3.1-8b" },
        { key: "ai_api_key", value: secret },
      ]),
    );
    expect(JSON.stringify(saved)).not.toContain(secret);
    expect(saved.requires_restart).toBe(true);
    const after = byKey(saved);
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
    const listed = expectData(await list(admin.token));
    expect(byKey(listed).ai_model.requires_restart).toBe(false);
    expect(JSON.stringify(listed)).not.toContain(secret);

    // The environment wins over a saved value, and then the key cannot be saved here.
    const pinned = clientWithEnv(admin.token, { AI_MODEL: "pinned-model" });
    const viaEnv = expectData(await pinned.GET("/admin/instance-settings"));
    expect(byKey(viaEnv).ai_model).toMatchObject({
      value: "pinned-model",
      source: "environment",
      editable: false,
      database_override_configured: true,
    });
    const refused = await pinned.PUT("/admin/instance-settings", { body: { settings: [{ key: "ai_model", value: "x" }] } });
    expect(expectError(refused, 422).errors?.[0].location).toBe("body.settings[0].key");

    // `""` clears, a secret too.
    const cleared = await save(admin.token, [
      { key: "ai_api_key", value: "" },
      { key: "ai_model", value: "" },
    ]);
    expect(byKey(expectData(cleared)).ai_api_key).toMatchObject({
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
    const cases: [Schemas["InstanceSettingInput"][], string][] = [
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
    ];
    for (const [settings, location] of cases) {
      const problem = expectProblem(await save(admin.token, settings), 422, "validation-error");
      expect(
        problem.errors?.map((e) => e.location),
        JSON.stringify(problem),
      ).toContain(location);
    }
    // A value of the wrong type, which the typed client forbids: sent raw.
    const wrongType = await api<Problem>("PUT", "/admin/instance-settings", { token: admin.token, json: { settings: [{ key: "stripe_api_base", value: 5 }] } });
    expectRawProblem(wrongType, 422, "validation-error");
    expect(
      wrongType.body.errors?.map((e) => e.location),
      wrongType.text,
    ).toContain("body.settings[0].value");
    // The secret's value is not echoed in the error.
    const secretErr = await save(admin.token, [{ key: "ai_api_key", value: "zz" }]);
    expect(expectError(secretErr, 422).errors?.[0]).not.toHaveProperty("value");
    expectProblem(await save(admin.token, []), 422, "validation-error");
    // Bodies of the wrong shape, and one that is not JSON, which the typed client forbids: sent raw.
    for (const body of [{}, { settings: "x" }, []])
      expectRawProblem(await api("PUT", "/admin/instance-settings", { token: admin.token, json: body }), 422, "validation-error");
    expectRawProblem(
      await api("PUT", "/admin/instance-settings", { token: admin.token, body: "{", headers: { "content-type": "application/json" } }),
      400,
      "bad-request",
    );
    const rows = await withDb((db) => db.select().from(instanceSettings).where(eq(instanceSettings.key, "stripe_api_base")));
    expect(rows).toEqual([]);
  });
});

import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { auditEvents, browserSessions, passkeys, webauthnChallenges } from "../db/schema";
import { api, env, expectProblem, newUser, withDb } from "./helpers/harness";
import { SoftAuthenticator } from "./helpers/soft-authenticator";
import { newSignInChallenge } from "../lib/auth/sign-in-challenge";
import { toBase64Url } from "../lib/crypto";

/**
 * Passkeys (CONTRACT §3) and browser sessions (§8) against @simplewebauthn/server, with a software
 * authenticator standing in for the browser (test/browser-passkey.test.ts drives a real one).
 * The test environment's PUBLIC_BASE_URL is http://localhost:8787: RP ID `localhost`, that origin.
 */
const ORIGIN = new URL(env.PUBLIC_BASE_URL!).origin;
const SPEC_PROFILE_FIELDS = [
  "avatar_url",
  "composer_experience",
  "created_at",
  "display_name",
  "email",
  "email_verified",
  "has_password",
  "id",
  "is_admin",
  "is_managed",
  "legal_acceptance_required",
  "legal_accepted_at",
  "managed_organization_name",
  "password_usable",
  "privacy_version",
  "public_profile_enabled",
  "public_profile_visible_fields",
  "terms_version",
  "username",
];

const passkeyCount = (userId: string) => withDb(async (db) => (await db.select().from(passkeys).where(eq(passkeys.userId, userId))).length);

async function registered(opts: { isAdmin?: boolean } = {}) {
  const user = await newUser(opts);
  const device = new SoftAuthenticator(ORIGIN);
  const start = await api("POST", "/auth/security/passkeys/start", { token: user.token, json: { name: "Laptop" } });
  expect(start.status, start.text).toBe(200);
  const finish = await api("POST", "/auth/security/passkeys/finish", {
    token: user.token,
    json: { challenge_id: start.body.challenge_id, credential: device.register(start.body.options) },
  });
  expect(finish.status, finish.text).toBe(200);
  return { user, device, status: finish.body };
}

/** A passkey sign-in; answers the response and the cookie pair (`herald_session=…`). */
async function signIn(device: SoftAuthenticator, overrides: Parameters<SoftAuthenticator["assert"]>[1] = {}) {
  const start = await api("POST", "/auth/sessions/passkey/start");
  expect(start.status, start.text).toBe(200);
  const res = await api("POST", "/auth/sessions/passkey/finish", {
    json: { challenge_id: start.body.challenge_id, credential: device.assert(start.body.options, overrides) },
  });
  const cookie = res.headers.get("set-cookie")?.split(";")[0];
  return { res, cookie, start };
}

describe("passkey registration", () => {
  it("start gives creation options for this RP; finish stores the passkey and answers SecurityStatus with every field", async () => {
    const user = await newUser();
    const device = new SoftAuthenticator(ORIGIN);
    const start = await api("POST", "/auth/security/passkeys/start", { token: user.token, json: {} });
    expect(start.status, start.text).toBe(200);
    expect(start.body.$schema).toMatch(/PasskeyChallenge\.json$/);
    expect(start.body.options).toMatchObject({
      rp: { id: "localhost", name: "Herald" },
      attestation: "none",
      authenticatorSelection: { residentKey: "required" },
    });
    expect(start.body.options.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const finish = await api("POST", "/auth/security/passkeys/finish", {
      token: user.token,
      json: { challenge_id: start.body.challenge_id, credential: device.register(start.body.options), name: "Work laptop" },
    });
    expect(finish.status, finish.text).toBe(200);
    expect(finish.body.$schema).toMatch(/SecurityStatus\.json$/);
    expect(Object.keys(finish.body).sort()).toEqual(["$schema", "methods", "passkeys", "totp_enabled", "user"]);
    expect(Object.keys(finish.body.user).sort()).toEqual(SPEC_PROFILE_FIELDS);
    expect(finish.body).toMatchObject({ methods: ["passkey"], totp_enabled: false, user: { id: user.id, email: user.email } });
    expect(finish.body.passkeys).toEqual([{ id: expect.stringMatching(/^pky_/), name: "Work laptop", created_at: expect.any(String), last_used_at: null }]);
    const status = await api("GET", "/auth/security", { token: user.token });
    expect(status.status).toBe(200);
    expect(status.body.passkeys).toEqual(finish.body.passkeys);
  });

  it("a user without passkeys has no methods", async () => {
    const user = await newUser();
    const status = await api("GET", "/auth/security", { token: user.token });
    expect(status.body).toMatchObject({ methods: [], passkeys: [], totp_enabled: false });
  });

  it("replay, a wrong challenge, a wrong origin, a wrong RP ID, an expired or another user's challenge → 422 and nothing stored", async () => {
    const user = await newUser();
    const other = await newUser();
    const device = new SoftAuthenticator(ORIGIN);
    const start = () => api("POST", "/auth/security/passkeys/start", { token: user.token, json: {} }).then((r) => r.body);
    const finish = (json: unknown, token = user.token) => api("POST", "/auth/security/passkeys/finish", { token, json });

    const cases: [string, (options: any) => object, string][] = [
      ["wrong challenge", (o) => device.register(o, { challenge: "c29tZS1vdGhlci1jaGFsbGVuZ2UtdmFsdWU" }), "body.credential"],
      ["wrong origin", (o) => device.register(o, { origin: "https://evil.example" }), "body.credential"],
      ["wrong RP ID", (o) => device.register(o, { rpId: "evil.example" }), "body.credential"],
    ];
    for (const [what, make, location] of cases) {
      const s = await start();
      const res = await finish({ challenge_id: s.challenge_id, credential: make(s.options) });
      expectProblem(res, 422, "validation-error");
      expect(res.body.errors[0].location, what).toBe(location);
    }

    const expired = await start();
    await withDb((db) =>
      db.update(webauthnChallenges).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(webauthnChallenges.id, expired.challenge_id)),
    );
    expectProblem(await finish({ challenge_id: expired.challenge_id, credential: device.register(expired.options) }), 422, "validation-error");

    const theirs = await start();
    expectProblem(await finish({ challenge_id: theirs.challenge_id, credential: device.register(theirs.options) }, other.token), 422, "validation-error");
    expect(await passkeyCount(user.id)).toBe(0);

    // Replay: the same, valid response twice (last: a further passkey would need a browser session).
    const first = await start();
    const body = { challenge_id: first.challenge_id, credential: device.register(first.options) };
    expect((await finish(body)).status).toBe(200);
    const replay = await finish(body);
    expectProblem(replay, 422, "validation-error");
    expect(replay.body.errors[0].location).toBe("body.challenge_id");

    expect(await passkeyCount(user.id)).toBe(1);
    expect(await passkeyCount(other.id)).toBe(0);
  });

  it("the first passkey may be added with a token, any further one only from a browser session (403 session-required)", async () => {
    const { user, device } = await registered();
    const refused = await api("POST", "/auth/security/passkeys/start", { token: user.token, json: {} });
    expectProblem(refused, 403, "session-required");
    const { cookie } = await signIn(device);
    const asSession = { cookie: cookie!, origin: ORIGIN };
    const second = new SoftAuthenticator(ORIGIN);
    const start = await api("POST", "/auth/security/passkeys/start", { headers: asSession, json: { name: "Phone" } });
    expect(start.status, start.text).toBe(200);
    // Finishing with the token instead is refused too (the challenge is spent).
    const viaToken = await api("POST", "/auth/security/passkeys/finish", {
      token: user.token,
      json: { challenge_id: start.body.challenge_id, credential: second.register(start.body.options) },
    });
    expectProblem(viaToken, 403, "session-required");
    expect(await passkeyCount(user.id)).toBe(1);
    const again = await api("POST", "/auth/security/passkeys/start", { headers: asSession, json: { name: "Phone" } });
    const done = await api("POST", "/auth/security/passkeys/finish", {
      headers: asSession,
      json: { challenge_id: again.body.challenge_id, credential: second.register(again.body.options) },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.passkeys.map((k: { name: string }) => k.name)).toEqual(["Laptop", "Phone"]);
  });

  it("malformed credentials are 422s naming the field, not 500s", async () => {
    const user = await newUser();
    const s = (await api("POST", "/auth/security/passkeys/start", { token: user.token, json: {} })).body;
    const junk = { id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "AAAA", attestationObject: "AAAA" }, clientExtensionResults: {} };
    const res = await api("POST", "/auth/security/passkeys/finish", { token: user.token, json: { challenge_id: s.challenge_id, credential: junk } });
    expectProblem(res, 422, "validation-error");
    expect(res.body.errors[0].location).toBe("body.credential");
    const wrongType = await api("POST", "/auth/security/passkeys/finish", { token: user.token, json: { challenge_id: 7, credential: "x" } });
    expectProblem(wrongType, 422, "validation-error");
  });

  it("deleting a passkey: another user's → 404; one's own → 204, and its sessions end", async () => {
    const { user, device, status } = await registered();
    const stranger = await newUser();
    const id = status.passkeys[0].id;
    expectProblem(await api("DELETE", `/auth/security/passkeys/${id}`, { token: stranger.token }), 404, "not-found");
    const { cookie } = await signIn(device);
    expect((await api("GET", "/auth/me", { headers: { cookie: cookie! } })).status).toBe(200);
    const del = await api("DELETE", `/auth/security/passkeys/${id}`, { token: user.token });
    expect(del.status, del.text).toBe(204);
    expect(await passkeyCount(user.id)).toBe(0);
    expectProblem(await api("GET", "/auth/me", { headers: { cookie: cookie! } }), 401, "unauthorized");
    expectProblem(await api("DELETE", `/auth/security/passkeys/${id}`, { token: user.token }), 404, "not-found");
    const events = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, id)));
    expect(events.map((e) => [e.action, e.actorUserId])).toEqual([
      ["passkey.add", user.id],
      ["passkey.remove", user.id],
    ]);
  });
});

describe("passkey sign-in and browser sessions", () => {
  it("signs in with a discoverable credential: cookie flags, only a hash stored, last_used_at moves, the cookie authenticates", async () => {
    const { user, device } = await registered();
    const { res, cookie, start } = await signIn(device);
    expect(start.body.options.rpId).toBe("localhost");
    expect(start.body.options.allowCredentials ?? []).toEqual([]);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: user.email });
    expect(res.body.$schema).toMatch(/UserProfile\.json$/);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^herald_session=hls_[a-z0-9]{40}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=604800$/);
    const value = cookie!.split("=")[1];
    const rows = await withDb((db) => db.select().from(browserSessions).where(eq(browserSessions.userId, user.id)));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(value);
    expect(rows[0].expiresAt.getTime() - rows[0].createdAt.getTime()).toBeCloseTo(7 * 24 * 3600 * 1000, -4);
    const [key] = await withDb((db) => db.select().from(passkeys).where(eq(passkeys.userId, user.id)));
    expect(key.lastUsedAt).not.toBeNull();
    expect(key.counter).toBe(1);

    const me = await api("GET", "/auth/me", { headers: { cookie: cookie! } });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
    const security = await api("GET", "/auth/security", { headers: { cookie: `other=1; ${cookie}` } });
    expect(security.body.passkeys[0].last_used_at).not.toBeNull();
  });

  it("a sign-in challenge is single use; a wrong origin or RP ID, or an unknown credential → 401 and no session", async () => {
    const { user, device } = await registered();
    const start = await api("POST", "/auth/sessions/passkey/start");
    const body = { challenge_id: start.body.challenge_id, credential: device.assert(start.body.options) };
    expect((await api("POST", "/auth/sessions/passkey/finish", { json: body })).status).toBe(200);
    expectProblem(await api("POST", "/auth/sessions/passkey/finish", { json: body }), 401, "unauthorized");
    expectProblem((await signIn(device, { origin: "https://evil.example" })).res, 401, "unauthorized");
    expectProblem((await signIn(device, { rpId: "evil.example" })).res, 401, "unauthorized");
    expectProblem((await signIn(stranger())).res, 401, "unauthorized");
    const sessions = await withDb((db) => db.select().from(browserSessions).where(eq(browserSessions.userId, user.id)));
    expect(sessions).toHaveLength(1);

    function stranger() {
      // A credential this server never registered, signed correctly for this RP.
      const unknown = new SoftAuthenticator(ORIGIN);
      unknown.register({ rp: { id: "localhost" }, user: { id: "dXNyX25vYm9keQ" }, challenge: "AAAA" });
      return unknown;
    }
  });

  it("starting a sign-in stores nothing; finishing spends the challenge once; an expired or forged one → 401", async () => {
    const { device } = await registered();
    const rowsFor = (id: string) => withDb((db) => db.select().from(webauthnChallenges).where(eq(webauthnChallenges.id, id)));
    const start = await api("POST", "/auth/sessions/passkey/start");
    expect(start.status).toBe(200);
    expect(await rowsFor(start.body.challenge_id)).toEqual([]);
    const body = { challenge_id: start.body.challenge_id, credential: device.assert(start.body.options) };
    expect((await api("POST", "/auth/sessions/passkey/finish", { json: body })).status).toBe(200);
    expect(await rowsFor(start.body.challenge_id)).toHaveLength(1);
    expectProblem(await api("POST", "/auth/sessions/passkey/finish", { json: body }), 401, "unauthorized");

    // Made by this instance's key, but expired (issued 6 minutes ago).
    const old = await newSignInChallenge(env, Date.now() - 6 * 60_000);
    const stale = { challenge_id: old.id, credential: device.assert({ ...start.body.options, challenge: toBase64Url(old.challenge) }) };
    expectProblem(await api("POST", "/auth/sessions/passkey/finish", { json: stale }), 401, "unauthorized");
    // A well-formed id whose challenge was not this instance's to give: the signed challenge does not match.
    const forged = { challenge_id: `sic_${Math.floor(Date.now() / 1000) + 200}_${"a".repeat(24)}`, credential: device.assert(start.body.options) };
    expectProblem(await api("POST", "/auth/sessions/passkey/finish", { json: forged }), 401, "unauthorized");
  });

  it("a signature counter that does not move forward → 401, recorded as denied evidence", async () => {
    const { user, device } = await registered();
    expect((await signIn(device, { counter: 5 })).res.status).toBe(200);
    const back = await signIn(device, { counter: 3 });
    expectProblem(back.res, 401, "unauthorized");
    expect(back.cookie).toBeUndefined();
    expectProblem((await signIn(device, { counter: 5 })).res, 401, "unauthorized");
    expect((await signIn(device, { counter: 6 })).res.status).toBe(200);
    const denied = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.actorUserId, user.id), eq(auditEvents.outcome, "denied"))),
    );
    expect(denied.map((e) => e.action)).toEqual(["session.sign_in", "session.sign_in"]);
  });

  it("a cookie-carried unsafe request needs our own Origin (403 otherwise); a safe one does not", async () => {
    const { device } = await registered();
    const { cookie } = await signIn(device);
    const make = (headers: Record<string, string>) =>
      api("POST", "/auth/tokens", { headers: { cookie: cookie!, ...headers }, json: { name: "from the page" } });
    expectProblem(await make({}), 403, "forbidden");
    expectProblem(await make({ origin: "https://evil.example" }), 403, "forbidden");
    expectProblem(await make({ origin: "null" }), 403, "forbidden");
    const ok = await make({ origin: ORIGIN });
    expect(ok.status, ok.text).toBe(201);
    expect((await api("GET", "/auth/security", { headers: { cookie: cookie! } })).status).toBe(200);
  });

  it("sessions end after 12 h idle and 7 days in all; a forged cookie is 401", async () => {
    const { user, device } = await registered();
    const idle = (await signIn(device)).cookie!;
    const old = (await signIn(device)).cookie!;
    const fresh = (await signIn(device)).cookie!;
    const sessions = await withDb((db) => db.select().from(browserSessions).where(eq(browserSessions.userId, user.id)).orderBy(browserSessions.createdAt));
    expect(sessions).toHaveLength(3);
    await withDb(async (db) => {
      await db.update(browserSessions).set({ lastSeenAt: sql`now() - interval '12 hours 1 minute'` }).where(eq(browserSessions.id, sessions[0].id));
      await db.update(browserSessions).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(browserSessions.id, sessions[1].id));
      // Used 11 hours ago: still within the idle limit.
      await db.update(browserSessions).set({ lastSeenAt: sql`now() - interval '11 hours'` }).where(eq(browserSessions.id, sessions[2].id));
    });
    expectProblem(await api("GET", "/auth/me", { headers: { cookie: idle } }), 401, "unauthorized");
    expectProblem(await api("GET", "/auth/me", { headers: { cookie: old } }), 401, "unauthorized");
    expect((await api("GET", "/auth/me", { headers: { cookie: fresh } })).status).toBe(200);
    const [touched] = await withDb((db) => db.select().from(browserSessions).where(eq(browserSessions.id, sessions[2].id)));
    expect(Date.now() - touched.lastSeenAt.getTime()).toBeLessThan(60_000);
    expectProblem(await api("GET", "/auth/me", { headers: { cookie: `herald_session=hls_${"a".repeat(40)}` } }), 401, "unauthorized");
    expectProblem(await api("GET", "/auth/me", { headers: { cookie: "herald_session=<script>" } }), 401, "unauthorized");
  });

  it("sign-out revokes the session and clears the cookie; a bearer token has no session to end (400)", async () => {
    const { user, device } = await registered();
    const { cookie } = await signIn(device);
    expectProblem(await api("DELETE", "/auth/sessions/current", { headers: { cookie: cookie! } }), 403, "forbidden");
    const out = await api("DELETE", "/auth/sessions/current", { headers: { cookie: cookie!, origin: ORIGIN } });
    expect(out.status, out.text).toBe(204);
    expect(out.headers.get("set-cookie")).toBe("herald_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
    expectProblem(await api("GET", "/auth/me", { headers: { cookie: cookie! } }), 401, "unauthorized");
    expectProblem(await api("DELETE", "/auth/sessions/current", { token: user.token }), 400, "bad-request");
    const actions = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.actorUserId, user.id)).orderBy(auditEvents.seq));
    expect(actions.map((e) => [e.action, e.actorKind])).toEqual([
      ["passkey.add", "token"],
      ["session.sign_in", "session"],
      ["session.sign_out", "session"],
    ]);
  });

  it("on https the cookie is Secure, and the RP is PUBLIC_BASE_URL's host", async () => {
    const httpsEnv = { ...env, PUBLIC_BASE_URL: "https://herald.example" };
    const call = async (method: string, path: string, init: { token?: string; json?: unknown } = {}) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      const res = await gateway.request(path, { method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) }, httpsEnv);
      return { res, body: (await res.json()) as any };
    };
    const user = await newUser();
    const device = new SoftAuthenticator("https://herald.example");
    const reg = await call("POST", "/auth/security/passkeys/start", { token: user.token, json: {} });
    expect(reg.body.options.rp.id).toBe("herald.example");
    expect(
      (
        await call("POST", "/auth/security/passkeys/finish", {
          token: user.token,
          json: { challenge_id: reg.body.challenge_id, credential: device.register(reg.body.options) },
        })
      ).res.status,
    ).toBe(200);
    const start = await call("POST", "/auth/sessions/passkey/start");
    const finish = await call("POST", "/auth/sessions/passkey/finish", {
      json: { challenge_id: start.body.challenge_id, credential: device.assert(start.body.options) },
    });
    expect(finish.res.status).toBe(200);
    expect(finish.res.headers.get("set-cookie")).toMatch(/; Secure$/);
  });
});

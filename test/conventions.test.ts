import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { idempotencyKeys, workspaces } from "../db/schema";
import { canonicalJson, sha256Hex } from "../lib/crypto";
import { api, newUser, newWorkspace, withDb, type ApiResponse, expectProblem } from "./helpers/harness";

describe("authentication", () => {
  it("401 for a missing, malformed, unknown or revoked token", async () => {
    expectProblem(await api("GET", "/auth/me"), 401, "unauthorized");
    expectProblem(await api("GET", "/auth/me", { headers: { authorization: "Basic Zm9vOmJhcg==" } }), 401, "unauthorized");
    expectProblem(await api("GET", "/auth/me", { headers: { authorization: "Bearer " + "x".repeat(5000) } }), 401, "unauthorized");
    expectProblem(await api("GET", "/auth/me", { token: "hld_thisisnotatokenweissued0000000000000000" }), 401, "unauthorized");
    const user = await newUser();
    const extra = await api("POST", "/auth/tokens", { token: user.token, json: { name: "short-lived" } });
    await api("DELETE", `/auth/tokens/${extra.body.id}`, { token: extra.body.token });
    const res = await api("GET", "/auth/me", { token: extra.body.token });
    expectProblem(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("answers 401 before looking at the body", async () => {
    expectProblem(await api("POST", "/workspaces", { body: "{not json", headers: { "content-type": "application/json" } }), 401, "unauthorized");
  });
});

describe("bad input", () => {
  it("400 for malformed JSON and for a body that is not JSON", async () => {
    const { token } = await newUser();
    expectProblem(await api("POST", "/workspaces", { token, body: '{"name": ', headers: { "content-type": "application/json" } }), 400, "bad-request");
    expectProblem(
      await api("POST", "/workspaces", { token, body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      400,
      "bad-request",
    );
    expectProblem(await api("POST", "/workspaces", { token, body: '{"name":"x"}', headers: { "content-type": "text/plain" } }), 400, "bad-request");
  });

  it("422 with errors[].location for wrong types, missing fields, unknown enums and huge strings", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const wrongType = await api("PATCH", `/workspaces/${ws}`, { token: owner.token, json: { expected_revision: "one", name: "x" } });
    expectProblem(wrongType, 422, "validation-error");
    expect(wrongType.body.errors).toEqual([expect.objectContaining({ location: "body.expected_revision", message: expect.any(String), value: "one" })]);

    const missing = await api("POST", "/workspaces", { token: owner.token, json: {} });
    expectProblem(missing, 422, "validation-error");
    expect(missing.body.errors[0].location).toBe("body.name");

    const badEnum = await api("POST", `/workspaces/${ws}/members`, { token: owner.token, json: { user_id: owner.id, role: "superuser" } });
    expectProblem(badEnum, 422, "validation-error");
    expect(badEnum.body.errors[0].location).toBe("body.role");

    const huge = await api("POST", "/workspaces", { token: owner.token, json: { name: "x".repeat(100_000) } });
    expectProblem(huge, 422, "validation-error");
    expect(huge.body.errors[0].location).toBe("body.name");
    expect(huge.text.length).toBeLessThan(2000); // the 100 KB value is not echoed back

    const badLimit = await api("GET", "/workspaces?limit=0", { token: owner.token });
    expectProblem(badLimit, 422, "validation-error");
    expect(badLimit.body.errors[0].location).toBe("query.limit");
    expectProblem(await api("GET", "/workspaces?limit=abc", { token: owner.token }), 422, "validation-error");
    expectProblem(await api("GET", "/workspaces?limit=100000", { token: owner.token }), 422, "validation-error");
  });

  it("400 for absurdly deep JSON, never a 5xx", async () => {
    const { token } = await newUser();
    const deep = `{"name": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expectProblem(await api("POST", "/workspaces", { token, body: deep, headers: { "content-type": "application/json" } }), 400, "bad-request");
    const tricky = JSON.stringify({ name: "[[[[{{".repeat(30) }); // brackets inside strings do not count
    expect((await api("POST", "/workspaces", { token, body: tricky, headers: { "content-type": "application/json" } })).status).toBe(201);
  });

  it("422 for NUL characters in the path, the query or the body (Postgres text cannot hold them)", async () => {
    const { token } = await newUser();
    const inPath = await api("DELETE", "/auth/tokens/%00", { token });
    expectProblem(inPath, 422, "validation-error");
    expect(inPath.body.errors[0].location).toBe("path");
    expect((await api("GET", "/workspaces?cursor=%00", { token })).body.errors[0].location).toBe("query.cursor");
    const inBody = await api("POST", "/workspaces", { token, json: { name: "a\u0000b" } });
    expectProblem(inBody, 422, "validation-error");
    expect(inBody.body.errors[0].location).toBe("body.name");
  });

  it("413 for a body over the limit", async () => {
    const { token } = await newUser();
    const big = JSON.stringify({ name: "y".repeat(2 * 1024 * 1024) });
    expectProblem(await api("POST", "/workspaces", { token, body: big, headers: { "content-type": "application/json" } }), 413, "payload-too-large");
  });

  it("404 problem for an unknown route", async () => {
    const { token } = await newUser();
    expectProblem(await api("GET", "/no/such/thing", { token }), 404, "not-found");
  });
});

describe("workspace isolation", () => {
  it("404, never 403, for a workspace the caller is not a member of", async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const ws = await newWorkspace(owner);
    expectProblem(await api("PATCH", `/workspaces/${ws}`, { token: stranger.token, json: { expected_revision: 1, name: "mine now" } }), 404, "not-found");
    expectProblem(await api("POST", "/analytics/refresh", { token: stranger.token, json: { workspace_id: ws } }), 404, "not-found");
    // Same answer as for a workspace that does not exist at all.
    expectProblem(await api("POST", "/analytics/refresh", { token: stranger.token, json: { workspace_id: "wsp_doesnotexist" } }), 404, "not-found");
  });

  it("403 for a member whose role is too low", async () => {
    const owner = await newUser();
    const viewer = await newUser();
    const ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
    expectProblem(await api("POST", "/analytics/refresh", { token: viewer.token, json: { workspace_id: ws } }), 403, "forbidden");
    expectProblem(await api("PATCH", `/workspaces/${ws}`, { token: viewer.token, json: { expected_revision: 1, name: "x" } }), 403, "forbidden");
  });
});

describe("Idempotency-Key", () => {
  const create = (token: string, key: string, name: string) => api("POST", "/workspaces", { token, json: { name }, headers: { "idempotency-key": key } });

  it("replays the first response for the same key and body, with no second effect", async () => {
    const user = await newUser();
    const first = await create(user.token, "key-replay", "Once");
    expect(first.status).toBe(201);
    const second = await create(user.token, "key-replay", "Once");
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    const list = await api("GET", "/workspaces", { token: user.token });
    expect(list.body).toHaveLength(1);
  });

  it("422 for the same key with another body; keys are per caller", async () => {
    const user = await newUser();
    expect((await create(user.token, "key-body", "A")).status).toBe(201);
    expectProblem(await create(user.token, "key-body", "B"), 422, "idempotency-key-reused");
    const other = await newUser();
    const theirs = await create(other.token, "key-body", "B");
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
  });

  it("409 while the same key is in flight; an abandoned claim is taken over", async () => {
    const user = await newUser();
    const request = { name: "Held" };
    const fingerprint = await sha256Hex(canonicalJson(request));
    const claim = { userId: user.id, workspaceId: "", operation: "workspaces.create", key: "key-inflight", fingerprint, state: "in_flight" as const };
    await withDb((db) => db.insert(idempotencyKeys).values({ ...claim, lockedUntil: new Date(Date.now() + 60_000) }));
    const res = await create(user.token, "key-inflight", "Held");
    expectProblem(res, 409, "idempotency-key-in-use");
    expect(res.headers.get("retry-after")).toBe("1");

    await withDb((db) =>
      db
        .update(idempotencyKeys)
        .set({ lockedUntil: new Date(Date.now() - 1000) })
        .where(and(eq(idempotencyKeys.userId, user.id), eq(idempotencyKeys.key, "key-inflight"))),
    );
    expect((await create(user.token, "key-inflight", "Held")).status).toBe(201);
  });

  it("twenty concurrent requests with one key create one workspace", async () => {
    const user = await newUser();
    const results = await Promise.all(Array.from({ length: 20 }, () => create(user.token, "key-race", "Raced")));
    for (const r of results) expect([201, 409]).toContain(r.status);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.body.id).toBe(created[0].body.id);
    const rows = await withDb((db) => db.select().from(workspaces).where(eq(workspaces.createdBy, user.id)));
    expect(rows).toHaveLength(1);
  });

  it("rejects keys longer than 200 characters", async () => {
    const user = await newUser();
    const res = await create(user.token, "k".repeat(201), "Long");
    expectProblem(res, 422, "validation-error");
    expect(res.body.errors[0].location).toBe("header.idempotency-key");
  });
});

describe("cursors", () => {
  it("pages with Link rel=next, stays stable under inserts, and rejects foreign cursors", async () => {
    const user = await newUser();
    const names = ["one", "two", "three", "four", "five"];
    for (const name of names) await api("POST", "/workspaces", { token: user.token, json: { name } });
    const seen: string[] = [];
    let next: string | null = "/workspaces?limit=2";
    let pages = 0;
    while (next) {
      const page: ApiResponse = await api("GET", next, { token: user.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.map((w: { name: string }) => w.name));
      if (pages === 0) await api("POST", "/workspaces", { token: user.token, json: { name: "six" } }); // inserted mid-walk
      const link: string | null = page.headers.get("link");
      next = link ? new URL(/<([^>]+)>; rel="next"/.exec(link)![1]).pathname + new URL(/<([^>]+)>/.exec(link)![1]).search : null;
      pages++;
    }
    expect(seen).toEqual([...names, "six"]);
    expect(pages).toBe(3);

    const badDate = Buffer.from(JSON.stringify({ v: 1, p: ["not a date", "wsp_x"] })).toString("base64url");
    for (const bad of ["garbage", "eyJ2IjoyfQ", "x".repeat(600), "%00", badDate]) {
      const res = await api("GET", `/workspaces?cursor=${encodeURIComponent(bad)}`, { token: user.token });
      expectProblem(res, 422, "validation-error");
      expect(res.body.errors[0].location).toBe("query.cursor");
    }
  });
});

describe("API description", () => {
  it("serves OpenAPI 3.1 and the JSON Schema that $schema names", async () => {
    const doc = await api("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(doc.body.paths["/workspaces"].post).toBeDefined();
    const user = await newUser();
    const me = await api("GET", "/auth/me", { token: user.token });
    const schema = await api("GET", new URL(me.body.$schema).pathname);
    expect(schema.status).toBe(200);
    expect(schema.body.$id).toBe(me.body.$schema);
    for (const key of Object.keys(me.body)) if (key !== "$schema") expect(schema.body.properties).toHaveProperty(key);
    expect((await api("GET", "/api/v1/schemas/NoSuchThing.json")).status).toBe(404);
  });
});

import { describe, expect, it } from "vitest";
import { toBase64Url } from "../lib/crypto";
import { api, expectProblem, newUser, newWorkspace } from "./helpers/harness";

/** Cursors that decode (valid base64url JSON of our version) but hold what we never issue. */
const forge = (p: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify({ v: 1, p })));
const FORGED = [
  forge(["not a date", "x"]),
  forge(["-271821-04-20T00:00:00.000Z", "x"]),
  forge(["2026-01-01T00:00:00.000Z", "a\u0000b"]),
  forge([1e300, 2]),
  forge(["x", 2147483648]),
  forge([1.5]),
  toBase64Url(new TextEncoder().encode("null")),
  toBase64Url(new TextEncoder().encode("[1]")),
];

describe("hostile input gets a 4xx, never a 500", () => {
  it("forged cursors on every cursor list → 422 naming query.cursor", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const lists = [
      `/messages?workspace_id=${ws}`,
      `/publications?workspace_id=${ws}`,
      `/workspaces?`,
      `/voice-profiles?workspace_id=${ws}`,
      `/image-editor/templates?workspace_id=${ws}`,
    ];
    for (const list of lists) {
      for (const cursor of FORGED) {
        const res = await api("GET", `${list}&cursor=${cursor}`, { token: owner.token });
        expectProblem(res, 422, "validation-error");
        expect(res.body.errors[0].location, list).toBe("query.cursor");
      }
    }
  });

  it("expected_revision beyond the database's integer range → 422, on bodies and queries alike", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const patch = await api("PATCH", `/workspaces/${ws}`, { token: owner.token, json: { expected_revision: 2147483648, name: "x" } });
    expectProblem(patch, 422, "validation-error");
    expect(patch.body.errors[0].location).toBe("body.expected_revision");
    // On the caller's own publication: an unknown or foreign one is 404 before its query is read (the access rule runs first).
    const created = await api("POST", "/publications", { token: owner.token, json: { workspace_id: ws, source_text: "x", destinations: [] } });
    expect(created.status, created.text).toBe(201);
    const del = await api("DELETE", `/publications/${created.body.id}?confirm=true&expected_revision=2147483648`, { token: owner.token });
    expectProblem(del, 422, "validation-error");
    expect(del.body.errors[0].location).toBe("query.expected_revision");
  });

  it("offset is capped at 10,000 (a deeper walk is refused, not run)", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    expect((await api("GET", `/media?workspace_id=${ws}&offset=10000`, { token: owner.token })).status).toBe(200);
    for (const path of [`/media?workspace_id=${ws}&offset=10001`, `/publications?workspace_id=${ws}&offset=1000000`]) {
      const res = await api("GET", path, { token: owner.token });
      expectProblem(res, 422, "validation-error");
      expect(res.body.errors[0].location).toBe("query.offset");
    }
  });

  it("the OpenAPI document declares query booleans as booleans and the 422 of DELETE /auth/tokens/{id}", async () => {
    const doc = (await api("GET", "/openapi.json")).body;
    const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: { name: string }) => p.name === name);
    expect(param("/publications/{id}", "delete", "confirm").schema.type).toBe("boolean");
    expect(param("/media", "get", "untagged").schema.type).toBe("boolean");
    expect(param("/voice-profiles/{id}", "delete", "expected_revision").schema).toMatchObject({ type: "integer", maximum: 2147483647 });
    const user = await newUser();
    const long = await api("DELETE", `/auth/tokens/${"x".repeat(101)}`, { token: user.token });
    expectProblem(long, 422, "validation-error");
    expect(Object.keys(doc.paths["/auth/tokens/{id}"].delete.responses)).toContain("422");
  });
});

describe("templates are listed in pages", () => {
  it("built-in templates first, then the workspace's own, `limit` at a time with a Link cursor", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const first = await api("GET", `/image-editor/templates?workspace_id=${ws}`, { token: owner.token });
    expect(first.status).toBe(200);
    const builtIn = first.body.templates.length;
    expect(builtIn).toBeGreaterThanOrEqual(3);
    const document = first.body.templates[0].document;
    for (const name of ["One", "Two", "Three"]) {
      const made = await api("POST", "/image-editor/templates", { token: owner.token, json: { workspace_id: ws, name, category: "social", document } });
      expect(made.status, made.text).toBe(201);
    }
    const page1 = await api("GET", `/image-editor/templates?workspace_id=${ws}&limit=2`, { token: owner.token });
    expect(page1.body.templates.map((t: { name: string }) => t.name).slice(builtIn)).toEqual(["One", "Two"]);
    const next = /<[^>]*[?&]cursor=([^&>]+)[^>]*>; rel="next"/.exec(page1.headers.get("link") ?? "")?.[1];
    expect(next).toBeTruthy();
    const page2 = await api("GET", `/image-editor/templates?workspace_id=${ws}&limit=2&cursor=${next}`, { token: owner.token });
    expect(page2.body.templates.map((t: { name: string }) => t.name)).toEqual(["Three"]);
    expect(page2.headers.get("link")).toBeNull();
    expectProblem(await api("GET", `/image-editor/templates?workspace_id=${ws}&limit=201`, { token: owner.token }), 422, "validation-error");
  });
});

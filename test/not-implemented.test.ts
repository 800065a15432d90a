import { beforeAll, describe, expect, it } from "vitest";
import { api, newUser, newWorkspace, slugOf, type ApiResponse } from "./helpers/harness";
import { scopedFixtures } from "./helpers/scoped-fixtures";
import { CASES, FIXTURES, type Req } from "./spec/not-implemented-cases";

type User = Awaited<ReturnType<typeof newUser>>;
let owner: User;
let viewer: User;
let outsider: User;
let admin: User;
let workspaceId: string;

const send = (req: Req, user?: User): Promise<ApiResponse> => api(req.method, req.path, { token: user?.token, json: req.json, headers: req.headers });

function expectProblem(res: ApiResponse, status: number, slug: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(res.body.type).toMatch(new RegExp(`/${slug}$`));
  expect(slugOf(res.body)).toBe(slug);
  expect(res.body.$schema).toBe("http://localhost:8787/api/v1/schemas/Problem.json");
}

/**
 * An operation is "built" once its route no longer declares a 501 response: then a valid request must
 * get a real answer (never 501, never 5xx) while the auth, scoping and validation checks below still hold.
 */
let declared501 = new Set<string>();
const isBuilt = (op: string) => !declared501.has(op);

beforeAll(async () => {
  [owner, viewer, outsider, admin] = await Promise.all([newUser(), newUser(), newUser(), newUser({ isAdmin: true })]);
  workspaceId = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
  Object.assign(FIXTURES, await scopedFixtures(workspaceId, owner.id));
  const doc = (await api("GET", "/openapi.json")).body;
  declared501 = new Set(
    Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => (op.responses?.["501"] ? [`${method.toUpperCase()} ${path}`] : [])),
    ),
  );
});

describe.each(CASES)("$op", (c) => {
  const caller = () => (c.adminOnly ? admin : owner);

  it("answers a valid request from a permitted caller: 501 until built, a real answer after", async () => {
    const res = await send(c.valid(workspaceId), caller());
    if (isBuilt(c.op)) {
      expect(res.status, res.text).toBeLessThan(500);
      return;
    }
    expectProblem(res, 501, "not-implemented");
    expect(res.body.detail).toContain(c.op);
  });

  it("answers 401 without a token", async () => {
    expectProblem(await send(c.valid(workspaceId)), 401, "unauthorized");
  });

  if (c.scoped) {
    it("answers 404 to a non-member of the workspace", async () => {
      expectProblem(await send(c.valid(workspaceId), outsider), 404, "not-found");
    });
  }

  if (c.adminOnly) {
    it("answers 403 to a user who is not an instance administrator", async () => {
      expectProblem(await send(c.valid(workspaceId), owner), 403, "forbidden");
    });
  }

  it.each(c.invalid)("answers 422 naming the field: $name", async ({ req, location }) => {
    const res = await send(req(workspaceId), caller());
    expectProblem(res, 422, "validation-error");
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
    // Huge values are not echoed back whole.
    expect(res.text.length).toBeLessThan(5_000);
  });
});

describe("role checks come before not-implemented", () => {
  it("a viewer may not set the default voice (admin+): 403", async () => {
    const res = await send({ method: "POST", path: "/voice-profiles/vop_1/default", json: { expected_revision: 1, workspace_id: workspaceId } }, viewer);
    expectProblem(res, 403, "forbidden");
  });

  it("a viewer may not queue message collection (editor+): 403", async () => {
    expectProblem(await send({ method: "POST", path: "/messages/refresh", json: { workspace_id: workspaceId } }, viewer), 403, "forbidden");
  });

  it("a viewer reaches the read operations", async () => {
    for (const [op, path] of [
      ["GET /media", `/media?workspace_id=${workspaceId}`],
      ["GET /publications", `/publications?workspace_id=${workspaceId}`],
      ["GET /analytics", `/analytics?workspace_id=${workspaceId}`],
    ]) {
      const res = await send({ method: "GET", path }, viewer);
      if (isBuilt(op)) expect(res.status, res.text).toBe(200);
      else expectProblem(res, 501, "not-implemented");
    }
  });

  it("optional workspace_id: without it the operation is reached, with a foreign one it is 404", async () => {
    for (const [op, path] of [
      ["GET /accounts/providers", "/accounts/providers"],
      ["GET /billing/status", "/billing/status"],
    ]) {
      const res = await send({ method: "GET", path }, outsider);
      if (isBuilt(op)) expect(res.status, res.text).toBe(200);
      else expectProblem(res, 501, "not-implemented");
    }
    expectProblem(await send({ method: "GET", path: `/billing/status?workspace_id=${workspaceId}` }, outsider), 404, "not-found");
  });
});

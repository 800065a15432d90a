import { beforeAll, describe, expect, it } from "vitest";
import { api, newUser, newWorkspace, slugOf, type ApiResponse } from "./helpers/harness";
import { CASES, type Req } from "./spec/not-implemented-cases";

type User = Awaited<ReturnType<typeof newUser>>;
let owner: User;
let viewer: User;
let outsider: User;
let admin: User;
let workspaceId: string;

const send = (req: Req, user?: User): Promise<ApiResponse> =>
  api(req.method, req.path, { token: user?.token, json: req.json, headers: req.headers });

function expectProblem(res: ApiResponse, status: number, slug: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(res.body.type).toMatch(new RegExp(`/${slug}$`));
  expect(slugOf(res.body)).toBe(slug);
  expect(res.body.$schema).toBe("http://localhost:8787/api/v1/schemas/Problem.json");
}

beforeAll(async () => {
  [owner, viewer, outsider, admin] = await Promise.all([newUser(), newUser(), newUser(), newUser({ isAdmin: true })]);
  workspaceId = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
});

describe.each(CASES)("$op (declared, not built)", (c) => {
  const caller = () => (c.adminOnly ? admin : owner);

  it("answers 501 not-implemented to a valid request from a permitted caller", async () => {
    const res = await send(c.valid(workspaceId), caller());
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

  it("a viewer reaches the read operations: 501", async () => {
    for (const path of [`/media?workspace_id=${workspaceId}`, `/publications?workspace_id=${workspaceId}`, `/analytics?workspace_id=${workspaceId}`]) {
      expectProblem(await send({ method: "GET", path }, viewer), 501, "not-implemented");
    }
  });

  it("optional workspace_id: without it the operation is reached, with a foreign one it is 404", async () => {
    expectProblem(await send({ method: "GET", path: "/accounts/providers" }, outsider), 501, "not-implemented");
    expectProblem(await send({ method: "GET", path: "/billing/status" }, outsider), 501, "not-implemented");
    expectProblem(await send({ method: "GET", path: `/billing/status?workspace_id=${workspaceId}` }, outsider), 404, "not-found");
  });
});

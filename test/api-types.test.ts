import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { API_TYPES_FILE, apiTypesSource } from "../local/api-types";
import { REPO_ROOT } from "../local/services/wrangler";
import { client } from "./helpers/client";
import { newUser, newWorkspace } from "./helpers/harness";

it(`${API_TYPES_FILE} is in step with the OpenAPI document (else run npx tsx local/api-types.ts)`, async () => {
  expect(fs.readFileSync(path.join(REPO_ROOT, API_TYPES_FILE), "utf8")).toBe(await apiTypesSource());
});

it("the typed client reaches the API with checked paths, parameters and answers", async () => {
  const user = await newUser();
  const workspaceId = await newWorkspace(user);
  const api = client(user.token);
  const me = await api.GET("/auth/me");
  expect(me.response.status).toBe(200);
  expect(me.data?.id).toBe(user.id);
  const created = await api.POST("/publications", { body: { workspace_id: workspaceId, source_text: "Typed", destinations: [] } });
  expect(created.response.status, JSON.stringify(created.error)).toBe(201);
  const id = created.data?.id ?? "";
  const read = await api.GET("/publications/{id}", { params: { path: { id } } });
  expect(read.data?.source_text).toBe("Typed");
  const missing = await api.GET("/publications/{id}", { params: { path: { id: "pub_unknown" } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.detail).toMatch(/No such publication/);
});

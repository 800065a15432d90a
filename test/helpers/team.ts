import { expect } from "vitest";
import { newUser, newWorkspace, slugOf, type ApiResponse } from "./harness";

export type User = Awaited<ReturnType<typeof newUser>>;

/** A problem+json answer with this status and slug. */
export function expectProblem(res: ApiResponse, status: number, slug: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(slugOf(res.body)).toBe(slug);
}

/** A workspace with one member of each role below owner, and a user from outside it. */
export async function newTeam() {
  const [owner, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  return { owner, editor, viewer, outsider, ws };
}

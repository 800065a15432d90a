import { personalOrganizationId } from "../../lib/billing/organizations";
import { expect, inject } from "vitest";
import gateway from "../../functions/all-groups";
import { workspaceMembers, workspaces, type Role } from "../../db/schema";
import { issueToken } from "../../lib/auth/tokens";
import { createUser } from "../../lib/auth/users";
import { openDb } from "../../lib/db/client";
import type { Env } from "../../lib/env";
import { newId } from "../../lib/ids";

export const env = inject("env") as unknown as Env;

/** Run a callback with a database handle of its own (tests inspect state directly). */
export async function withDb<T>(fn: (db: ReturnType<typeof openDb>["db"]) => Promise<T>): Promise<T> {
  const handle = openDb(env);
  try {
    return await fn(handle.db);
  } finally {
    await handle.close();
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Call the gateway in-process, exactly as a Worker would be called. */
export async function api<T = any>(
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] ??= "application/json";
  }
  const res = await gateway.request(path, { method, headers, body }, env);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

let counter = 0;

/** A fresh user with a token; each test makes its own so tests never share state. */
export async function newUser(opts: { isAdmin?: boolean } = {}) {
  return withDb(async (db) => {
    const user = await createUser(db, {
      email: `user${Date.now()}-${counter++}-${Math.random().toString(36).slice(2)}@example.test`,
      displayName: "Test User",
      isAdmin: opts.isAdmin ?? false,
    });
    const { token } = await issueToken(db, user.id, "test");
    return { id: user.id, email: user.email, token };
  });
}

/** A workspace owned by `owner`, with extra members at the given roles. */
export async function newWorkspace(owner: { id: string }, members: { id: string; role: Role }[] = []) {
  return withDb(async (db) => {
    const id = newId("wsp");
    await db.insert(workspaces).values({ id, name: `Workspace ${counter++}`, organizationId: await personalOrganizationId(db, owner.id), createdBy: owner.id });
    await db
      .insert(workspaceMembers)
      .values([{ workspaceId: id, userId: owner.id, role: "owner" as Role }, ...members.map((m) => ({ workspaceId: id, userId: m.id, role: m.role }))]);
    return id;
  });
}

/** Assert-friendly: the problem's slug (last segment of `type`). */
export const slugOf = (body: { type?: string }) => body?.type?.split("/").pop();

/** An RFC 9457 problem+json answer with this status and slug, naming its JSON Schema. */
export function expectProblem(res: Pick<ApiResponse, "status" | "headers" | "body" | "text">, status: number, slug: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
  expect(res.body.$schema).toMatch(/\/api\/v1\/schemas\/Problem\.json$/);
  expect(slugOf(res.body)).toBe(slug);
}

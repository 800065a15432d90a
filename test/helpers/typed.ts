import createClient, { type Client } from "openapi-fetch";
import { expect } from "vitest";
import gateway from "../../functions/all-groups";
import type { Env } from "../../lib/env";
import type { components, paths } from "./api-types";
import { env, slugOf } from "./harness";

/** The schemas of the OpenAPI document, as generated in test/helpers/api-types.ts. */
export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];

/** What an openapi-fetch call answers: `data` on success, `error` otherwise, and the raw `response`. */
interface Answer<D, E> {
  data?: D;
  error?: E;
  response: Response;
}

/**
 * The answer's `data`, after asserting its status (the error body, if any, is the assertion's message).
 * Fails when the answer carries no body.
 */
export function expectData<D, E>(res: Answer<D, E>, status = 200): D {
  expect(res.response.status, JSON.stringify(res.error)).toBe(status);
  if (res.data === undefined) throw new Error(`HTTP ${res.response.status} carried no body`);
  return res.data;
}

/**
 * An RFC 9457 problem+json answer with this status and slug, naming its JSON Schema (the typed
 * counterpart of harness.ts's `expectProblem`). Returns the problem for further assertions.
 */
export function expectProblem<D>(res: Answer<D, Problem>, status: number, slug: string): Problem {
  expect(res.response.status, JSON.stringify(res.error ?? res.data)).toBe(status);
  expect(res.response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(res.error).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
  const problem = expectError(res, status);
  expect(problem.$schema).toMatch(/\/api\/v1\/schemas\/Problem\.json$/);
  expect(slugOf(problem)).toBe(slug);
  return problem;
}

/** The answer's `error` (a problem), after asserting its status; no assertion on the slug. */
export function expectError<D>(res: Answer<D, Problem>, status: number): Problem {
  expect(res.response.status, JSON.stringify(res.error ?? res.data)).toBe(status);
  if (res.error === undefined) throw new Error(`HTTP ${res.response.status} carried no problem`);
  return res.error;
}

/**
 * As client.ts's `client(token)`, with some of the Worker's bindings replaced or added (e.g. `ALLOW_PRIVATE_URLS`,
 * or a setting's environment variable such as `AI_MODEL`).
 */
export function clientWithEnv(token: string | undefined, override: Partial<Env> | Record<string, string>): Client<paths> {
  const patched = { ...env, ...override };
  return createClient<paths>({
    baseUrl: "http://herald.test",
    headers: token ? { authorization: `Bearer ${token}` } : {},
    fetch: (request) => Promise.resolve(gateway.request(request, undefined, patched)),
  });
}

/** The locations a problem's `errors` name (empty when it names none), e.g. `body.operations[0].path`. */
export const locationsOf = (problem: Pick<Problem, "errors"> | undefined): string[] => (problem?.errors ?? []).map((e) => e.location);

/**
 * A video project's document as a VideoDocument: VideoProjectResponse declares `document` as an open object,
 * though the answer carries the whole VideoDocument (tests read its tracks and clips).
 */
export const videoDocumentOf = (project: Pick<Schemas["VideoProjectResponse"], "document">) => project.document as unknown as Schemas["VideoDocument"];

/** The `rel="next"` URL of an answer's Link header, if any. */
export function nextLink(response: Response): URL | undefined {
  const next = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
  return next === undefined ? undefined : new URL(next);
}

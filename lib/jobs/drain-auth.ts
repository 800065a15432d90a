import { secretsEqual } from "../crypto";
import type { Env } from "../env";

/** Shortest DRAIN_SECRET accepted: anything shorter leaves the drain endpoints switched off. */
export const MIN_DRAIN_SECRET_LENGTH = 32;

/**
 * Consumer Workers run their work on `POST /drain` for the local launcher's pump and for a group Worker's
 * nudge after a commit (lib/jobs/nudge.ts). Only a caller holding DRAIN_SECRET may drive them: without
 * a secret configured the endpoint answers 404 (it does not exist), with a wrong or missing bearer 401.
 * In production these Workers are also unreachable from the internet (wrangler.toml `workers_dev = false`,
 * no routes): only service bindings reach them.
 */
export async function drainRefusal(request: Request, env: Env): Promise<Response | null> {
  const secret = env.DRAIN_SECRET ?? "";
  if (secret.length < MIN_DRAIN_SECRET_LENGTH) return new Response("Not found", { status: 404 });
  const header = request.headers.get("authorization") ?? "";
  const given = header.startsWith("Bearer ") ? header.slice(7) : "";
  if (given && (await secretsEqual(given, secret))) return null;
  return new Response("Unauthorized", { status: 401, headers: { "WWW-Authenticate": "Bearer" } });
}

/** The header a caller of `POST /drain` sends. */
export const drainHeaders = (secret: string) => ({ authorization: `Bearer ${secret}` });

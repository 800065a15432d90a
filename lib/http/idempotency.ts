import { z } from "@hono/zod-openapi";
import { and, eq, lt, sql } from "drizzle-orm";
import type { TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed, JSONValue } from "hono/utils/types";
import { idempotencyKeys } from "../../db/schema";
import { canonicalJson, sha256Hex } from "../crypto";
import type { Tx } from "../db/client";
import { db, currentUser, type AppContext } from "./context";
import { ApiError, ReadyResponse } from "./errors";

/** Keys are kept 24 hours; both times are the database's (CONTRACT §9: the database's clock decides). */
const retentionAgo = sql`now() - interval '24 hours'`;
/** How long an in-flight claim is honoured before it counts as abandoned by a crashed request. */
const claimFromNow = sql`now() + interval '30 seconds'`;

export const IdempotencyKeyHeader = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: "Replay key scoped to caller, workspace and operation; at most 200 characters; kept 24 h" }),
});

/** The handler's answer: its status and body are those of the route's declared response. */
export interface IdempotentResult<T, S extends ContentfulStatusCode> {
  status: S;
  body: T;
  headers?: Record<string, string>;
}

/** What `c.json(body, status)` returns: a Response typed with its body and status, as the route's handler must answer. */
export type IdempotentResponse<T, S extends ContentfulStatusCode> = Response & TypedResponse<JSONParsed<T>, S, "json">;

interface Scope {
  workspaceId: string;
  /** Stable operation name, e.g. `publications.update`. */
  operation: string;
  /** The validated request (path id and body) the key is bound to. */
  request: unknown;
}

/**
 * Runs `work` in one transaction, at most once per Idempotency-Key (CONTRACT.md §2): the stored
 * response is written in that same transaction, so an effect and its replayable answer commit together.
 * Same key and body → replay with `Idempotent-Replayed: true`; other body → 422; still running → 409.
 *
 * It returns the handler's own answer as `c.json` types it, so the route checks it against its schema. A replay
 * is the answer stored as JSON, which no type describes: it is thrown as a ReadyResponse (as an ApiError is),
 * and the app's error handler sends it as it was stored.
 */
export async function idempotent<T extends JSONValue | {}, S extends ContentfulStatusCode>(
  c: AppContext,
  scope: Scope,
  work: (tx: Tx) => Promise<IdempotentResult<T, S>>,
): Promise<IdempotentResponse<T, S>> {
  const key = c.req.header("idempotency-key");
  const database = db(c);
  if (key === undefined) return respond(c, await database.transaction(work));

  const userId = currentUser(c).id;
  const fingerprint = await sha256Hex(canonicalJson(scope.request));
  const id = { userId, workspaceId: scope.workspaceId, operation: scope.operation, key };
  const where = and(
    eq(idempotencyKeys.userId, userId),
    eq(idempotencyKeys.workspaceId, scope.workspaceId),
    eq(idempotencyKeys.operation, scope.operation),
    eq(idempotencyKeys.key, key),
  );

  // Forget keys past their 24 hours so they can be claimed afresh.
  await database.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.createdAt, retentionAgo)));

  const claimed = await database
    .insert(idempotencyKeys)
    .values({ ...id, fingerprint, state: "in_flight", lockedUntil: claimFromNow })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });

  if (claimed.length === 0) {
    const [existing] = await database.select().from(idempotencyKeys).where(where).limit(1);
    if (!existing) throw new ApiError("idempotency-key-in-use", { detail: "This key was just released; retry.", headers: { "retry-after": "1" } });
    if (existing.fingerprint !== fingerprint) {
      throw new ApiError("idempotency-key-reused", { detail: "This Idempotency-Key was used with a different request; use a new key." });
    }
    if (existing.state === "done") throw new ReadyResponse(replay(existing.responseStatus!, existing.responseBody));
    // In flight. Take it over only if its claim lapsed (the request that held it died).
    const takenOver = await database
      .update(idempotencyKeys)
      .set({ lockedUntil: claimFromNow })
      .where(and(where, eq(idempotencyKeys.state, "in_flight"), lt(idempotencyKeys.lockedUntil, sql`now()`)))
      .returning({ key: idempotencyKeys.key });
    if (takenOver.length === 0) {
      throw new ApiError("idempotency-key-in-use", {
        detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
        headers: { "retry-after": "1" },
      });
    }
  }

  try {
    const result = await database.transaction(async (tx) => {
      const out = await work(tx);
      await tx.update(idempotencyKeys).set({ state: "done", responseStatus: out.status, responseBody: out.body }).where(where);
      return out;
    });
    return respond(c, result);
  } catch (err) {
    // Nothing took effect (the transaction rolled back): release the key so the request can be retried.
    await database
      .delete(idempotencyKeys)
      .where(and(where, eq(idempotencyKeys.state, "in_flight")))
      .catch(() => {});
    throw err;
  }
}

function respond<T extends JSONValue | {}, S extends ContentfulStatusCode>(c: AppContext, result: IdempotentResult<T, S>): IdempotentResponse<T, S> {
  return c.json(result.body, result.status, result.headers);
}

/** The stored answer, sent again as it was. */
function replay(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "idempotent-replayed": "true" } });
}

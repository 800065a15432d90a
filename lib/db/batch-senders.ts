/**
 * Which databases can send statements that commit together as one HTTP request, and how. Its own file so
 * that lib/db/client.ts (which registers a sender when it opens a database over HTTP) and lib/db/batch.ts
 * (which uses it) depend on it instead of on each other.
 */

import type { CustomTypesConfig } from "@neondatabase/serverless";

/** A statement as captured from drizzle, ready to go in a batch. */
export interface BatchStatement {
  text: string;
  params: unknown[];
  arrayMode: boolean;
  /** The type parsers to read its values with (lib/db/compiled.ts keeps dates as text, as drizzle's session does). */
  types?: CustomTypesConfig;
}

/** Sends captured statements as one non-interactive transaction (one HTTP request to the SQL endpoint). */
export type SendTogether = (statements: BatchStatement[]) => Promise<unknown[]>;

// Keyed by the drizzle database object itself: a handle's sender goes away with its database.
const senders = new WeakMap<object, SendTogether>();

/** Called by `openDb` for a database whose statements can go over HTTP. */
export function registerBatchSender(db: object, send: SendTogether): void {
  senders.set(db, send);
}

/** The database's sender, or undefined when its statements can only go over a connection. */
export function batchSenderOf(db: object): SendTogether | undefined {
  return senders.get(db);
}

import { sql } from "drizzle-orm";
import type { Env } from "../env";

/**
 * Default upload limit: 25 MiB. An upload is held in memory while it is checked (the multipart body, the
 * parsed file, the bytes handed to the parsers), and a Worker has 128 MB, so much larger defaults would
 * fail there; raise it with MEDIA_MAX_BYTES where uploads are streamed or memory allows.
 */
export const DEFAULT_MEDIA_MAX_BYTES = 25 * 1024 * 1024;
/** Room for the multipart framing and the small form fields beside the file. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export function mediaMaxBytes(env: Pick<Env, "MEDIA_MAX_BYTES">): number {
  const configured = Number(env.MEDIA_MAX_BYTES);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_MEDIA_MAX_BYTES;
}

/** How long an item stays in the trash, and how long a temporary upload lives, before the purge. */
export const TRASH_RETENTION_DAYS = 30;
export const TEMPORARY_RETENTION_DAYS = 7;
/** A temporary upload's expiry: by the database's clock (CONTRACT §9), as an SQL value for an insert or update. */
export const temporaryExpiry = () => sql`now() + make_interval(days => ${TEMPORARY_RETENTION_DAYS})`;

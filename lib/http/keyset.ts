import { asc, desc, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import { decodeCursor, encodeCursor, setNextLink } from "./pagination";

/** One column of a keyset order, with how its cursor value is written (lib/http/pagination.ts CursorPart). */
export interface KeysetColumn {
  column: AnyColumn;
  kind: "date" | "string" | "number";
}

type Position = Date | string | number;

/**
 * One keyset-paged list: the order (every column the same direction, the last one unique), the condition for
 * the page after the request's cursor, and the page and its `Link: rel="next"` from the rows read. Read
 * `limit + 1` rows: the extra one says whether there is a next page without another query.
 *
 *   const page = keyset(c, [{ column: t.createdAt, kind: "date" }, { column: t.id, kind: "string" }], "desc", query);
 *   const rows = await db.select().from(t).where(and(mine, page.after)).orderBy(...page.orderBy).limit(page.limit);
 *   const items = page.answer(rows, (r) => [r.createdAt, r.id]);
 */
export function keyset(c: Context, columns: readonly KeysetColumn[], direction: "asc" | "desc", query: { cursor?: string; limit: number }) {
  const position = query.cursor
    ? decodeCursor(
        query.cursor,
        columns.map((k) => k.kind),
      )
    : null;
  const values = position?.map((value, i) => (columns[i].kind === "date" ? new Date(value) : value));
  const tuple = (parts: readonly unknown[]) =>
    sql.join(
      parts.map((part) => sql`${part}`),
      sql`, `,
    );
  const after: SQL | undefined = values
    ? direction === "desc"
      ? sql`(${tuple(columns.map((k) => k.column))}) < (${tuple(values)})`
      : sql`(${tuple(columns.map((k) => k.column))}) > (${tuple(values)})`
    : undefined;
  return {
    /** The condition for rows after the cursor (undefined on the first page). */
    after,
    orderBy: columns.map((k) => (direction === "desc" ? desc(k.column) : asc(k.column))),
    /** How many rows to read: one more than the page. */
    limit: query.limit + 1,
    /** The page out of the rows read, setting the next link from the last row's position when there are more. */
    answer<T>(rows: readonly T[], positionOf: (row: T) => readonly Position[]): T[] {
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      const more = rows.length > query.limit && last !== undefined;
      setNextLink(c, more ? encodeCursor(positionOf(last).map((v) => (v instanceof Date ? v.toISOString() : v))) : null);
      return page;
    },
  };
}

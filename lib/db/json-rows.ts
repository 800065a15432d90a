import { getTableColumns, type Column, type Table } from "drizzle-orm";

/** A table's columns by property name, listed once per table (a page maps hundreds of rows). */
const columnLists = new WeakMap<Table, [string, Column][]>();
function columnsOf(table: Table): [string, Column][] {
  let list = columnLists.get(table);
  if (!list) {
    list = Object.entries(getTableColumns(table));
    columnLists.set(table, list);
  }
  return list;
}

/**
 * A row as Postgres's `row_to_json` / `json_agg` gives it (column names, JSON values) → the row drizzle would
 * have read for the table (property names, Dates, numbers). Lets one statement return a row with its
 * children as JSON instead of one statement per table.
 */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown>): T["$inferSelect"] {
  const row: Record<string, unknown> = {};
  for (const [key, column] of columnsOf(table)) {
    const value = json[column.name];
    if (value === null || value === undefined) row[key] = null;
    // A json(b) value arrives already parsed: the column's own mapping would parse a JSON string value again.
    else if (column.columnType === "PgJsonb" || column.columnType === "PgJson") row[key] = value;
    else row[key] = column.mapFromDriverValue(value);
  }
  return row as T["$inferSelect"];
}

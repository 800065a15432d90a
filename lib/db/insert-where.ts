import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

/**
 * `INSERT … SELECT <values> WHERE <condition>`: a row written only if the condition holds when the statement
 * runs, for a batch (lib/db/batch.ts) whose writes all depend on one check that no round trip can wait for.
 * drizzle's own insert-select wants every column; here the columns not given take the database's default
 * (not a `$defaultFn`), and each value is mapped and cast as its column's (an `sql` value goes in as written).
 */
export function insertWhere<T extends PgTable>(table: T, values: { [K in keyof T["$inferInsert"]]?: T["$inferInsert"][K] | SQL }, condition: SQL): SQL {
  const columns = getTableColumns(table);
  const given = Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const column = columns[key];
      if (!column) throw new Error(`insertWhere: ${key} is not a column`);
      return { column, value };
    });
  const names = sql.join(
    given.map(({ column }) => sql.identifier(column.name)),
    sql`, `,
  );
  const cells = sql.join(
    given.map(({ column, value }) => (is(value, SQL) ? value : sql`${sql.param(value, column)}::${sql.raw(column.getSQLType())}`)),
    sql`, `,
  );
  return sql`insert into ${table} (${names}) select ${cells} where ${condition}`;
}

import "../lib/db/node";
import { eq, sql } from "drizzle-orm";
import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inOneTransaction } from "../lib/db/batch";
import { openDb } from "../lib/db/client";
import { BoundStatement, compileStatement, placeholder, statementBuilder } from "../lib/db/compiled";
import { insertWhere } from "../lib/db/insert-where";
import { env } from "./helpers/harness";

// lib/db/batch.ts: statements that commit together, sent as one non-interactive transaction over the SQL
// endpoint (or, without one, run in a transaction on the WebSocket). Both paths must behave the same.
const probe = pgTable("batch_probe", {
  id: text("id").primaryKey(),
  n: integer("n").notNull(),
  at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
});

const viaHttp = openDb(env);
const viaSocket = openDb({ DATABASE_URL: env.DATABASE_URL, NEON_WS_PROXY: env.NEON_WS_PROXY });
beforeAll(async () => {
  await viaHttp.db.execute(sql`create table if not exists batch_probe (id text primary key, n integer not null, at timestamptz not null default now())`);
});
afterAll(async () => {
  await viaHttp.close();
  await viaSocket.close();
});

let seq = 0;
const key = (label: string) => `${label}-${Date.now()}-${seq++}`;

describe.each([
  ["over HTTP", viaHttp],
  ["over the WebSocket", viaSocket],
])("inOneTransaction %s", (_name, handle) => {
  it("runs the statements in order, in one transaction, and maps each result as drizzle does", async () => {
    const a = key("order");
    const [inserted, updated, read, [first], [second]] = await inOneTransaction(handle.db, (q) => [
      q.insert(probe).values({ id: a, n: 1 }).returning(),
      q
        .update(probe)
        .set({ n: sql`${probe.n} + 1` })
        .where(eq(probe.id, a))
        .returning({ n: probe.n }),
      // A later statement sees what an earlier one wrote.
      q.select({ n: probe.n }).from(probe).where(eq(probe.id, a)),
      q.select({ tx: sql<string>`txid_current()::text` }).from(probe).where(eq(probe.id, a)),
      q.select({ tx: sql<string>`txid_current()::text` }).from(probe).where(eq(probe.id, a)),
    ]);
    expect(inserted[0]).toMatchObject({ id: a, n: 1 });
    expect(inserted[0].at).toBeInstanceOf(Date);
    expect(updated).toEqual([{ n: 2 }]);
    expect(read).toEqual([{ n: 2 }]);
    expect(first.tx).toBe(second.tx);
  });

  it("is all or nothing: a failing statement undoes the ones before it and reports the database's error", async () => {
    const a = key("atomic");
    const b = key("atomic");
    await handle.db.insert(probe).values({ id: b, n: 0 });
    const failure = await inOneTransaction(handle.db, (q) => [
      q.insert(probe).values({ id: a, n: 1 }),
      q.update(probe).set({ n: 5 }).where(eq(probe.id, b)),
      q.insert(probe).values({ id: b, n: 2 }), // duplicate key
    ]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const cause = (failure as { cause?: { code?: string }; code?: string }).cause ?? failure;
    expect((cause as { code?: string }).code).toBe("23505");
    expect(await handle.db.select().from(probe).where(eq(probe.id, a))).toEqual([]);
    expect((await handle.db.select({ n: probe.n }).from(probe).where(eq(probe.id, b)))[0].n).toBe(0);
  });

  it("runs an sql statement in its turn: insertWhere writes its row only when the condition holds then", async () => {
    const a = key("where");
    const b = key("where");
    const [, , [read]] = await inOneTransaction(handle.db, (q) => [
      q.insert(probe).values({ id: a, n: 1 }),
      insertWhere(probe, { id: b, n: 2 }, sql`exists (select 1 from batch_probe where id = ${a})`),
      q.select({ n: probe.n }).from(probe).where(eq(probe.id, b)),
      insertWhere(probe, { id: key("never"), n: 3 }, sql`false`),
    ]);
    expect(read).toEqual({ n: 2 });
    const [row] = await handle.db.select().from(probe).where(eq(probe.id, b));
    expect(row.at).toBeInstanceOf(Date); // a column not given takes the database's default
  });

  it("takes compiled statements beside builders, in order, their rows mapped as drizzle maps them", async () => {
    const a = key("compiled");
    const insert = compileStatement<{ id: string; at: Date }>(
      statementBuilder
        .insert(probe)
        .values({ id: placeholder<string>("id"), n: placeholder<number>("n") })
        .returning({ id: probe.id, at: probe.at }),
      { id: probe.id, at: probe.at },
    );
    const [[inserted], updated, read] = await inOneTransaction(handle.db, (q) => [
      new BoundStatement(insert, { id: a, n: 4 }),
      q
        .update(probe)
        .set({ n: sql`${probe.n} + 1` })
        .where(eq(probe.id, a))
        .returning({ n: probe.n }),
      new BoundStatement(
        compileStatement<{ n: number }>(
          statementBuilder
            .select({ n: probe.n })
            .from(probe)
            .where(eq(probe.id, sql.placeholder("id"))),
          { n: probe.n },
        ),
        { id: a },
      ),
    ]);
    expect(inserted.id).toBe(a);
    expect(inserted.at).toBeInstanceOf(Date);
    expect(updated).toEqual([{ n: 5 }]);
    expect(read).toEqual([{ n: 5 }]);
  });

  it("joins the caller's transaction instead of committing on its own", async () => {
    const a = key("nested");
    const rolledBack = await handle.db
      .transaction(async (tx) => {
        await inOneTransaction(tx, (q) => [q.insert(probe).values({ id: a, n: 1 })]);
        throw new Error("undo");
      })
      .catch((e: Error) => e.message);
    expect(rolledBack).toBe("undo");
    expect(await handle.db.select().from(probe).where(eq(probe.id, a))).toEqual([]);
  });
});

describe("inOneTransaction over HTTP", () => {
  it("refuses something that is not one statement, sending nothing", async () => {
    const a = key("refused");
    await expect(inOneTransaction(viaHttp.db, (q) => [q.insert(probe).values({ id: a, n: 1 }), Promise.resolve("not a statement")])).rejects.toThrow(
      /one drizzle statement/,
    );
    expect(await viaHttp.db.select().from(probe).where(eq(probe.id, a))).toEqual([]);
  });
});

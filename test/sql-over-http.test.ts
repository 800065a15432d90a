import "../lib/db/node";
import { neon } from "@neondatabase/serverless";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../lib/db/client";
import { env } from "./helpers/harness";

// The same statements through the local SQL-over-HTTP endpoint (single statements) and through the
// WebSocket relay (a Pool session) must give the same values: the endpoint is a stand-in for Neon's.
const viaHttp = openDb(env);
const viaSocket = openDb({ DATABASE_URL: env.DATABASE_URL, NEON_WS_PROXY: env.NEON_WS_PROXY });
afterAll(async () => {
  await viaHttp.close();
  await viaSocket.close();
});

const probe = sql`select 1::int as i, 9007199254740993::bigint as big, 1.5::numeric as num, true as yes, null::text as nothing,
  'a"b\\c'::text as t, '{"k":[1,"x"]}'::jsonb as j, array[1,2,3]::int[] as arr, array['a','b,c']::text[] as texts,
  '2026-01-02T03:04:05.678Z'::timestamptz as ts, '2026-01-02'::date as d, '\\x00ff'::bytea as bytes, interval '1 day' as span,
  ${"param ✓"}::text as p, ${42}::int as n, ${new Date("2026-05-06T07:08:09Z")}::timestamptz as pd`;

describe("SQL over HTTP (local Neon endpoint)", () => {
  it("returns the same values as a WebSocket session, object and array rows", async () => {
    const a = await viaHttp.db.execute(probe);
    const b = await viaSocket.db.execute(probe);
    expect(a.rows).toEqual(b.rows);
    expect(a.rows[0]).toMatchObject({
      i: 1,
      yes: true,
      nothing: null,
      t: 'a"b\\c',
      j: { k: [1, "x"] },
      arr: [1, 2, 3],
      texts: ["a", "b,c"],
      p: "param ✓",
      n: 42,
    });
    expect(a.rowCount).toBe(1);
  });

  it("carries drizzle's typed selects, inserts with returning and row counts", async () => {
    await viaHttp.db.execute(sql`create table if not exists http_probe (id text primary key, at timestamptz not null, tags text[] not null, doc jsonb)`);
    const at = new Date("2026-03-04T05:06:07.089Z");
    const inserted = await viaHttp.db.execute(sql`insert into http_probe values (${"x1"}, ${at}, ${"{a,b}"}, ${JSON.stringify({ q: 1 })}) returning *`);
    expect(inserted.rows[0]).toMatchObject({ id: "x1", tags: ["a", "b"], doc: { q: 1 } });
    const updated = await viaHttp.db.execute(sql`update http_probe set doc = null where id in ('x1', 'nope')`);
    expect(updated.rowCount).toBe(1);
  });

  it("reports Postgres errors with their SQLSTATE, as the WebSocket path does", async () => {
    await viaHttp.db.execute(sql`create table if not exists http_unique (id text primary key)`);
    await viaHttp.db.execute(sql`insert into http_unique values ('dup') on conflict do nothing`);
    const err = await viaHttp.db.execute(sql`insert into http_unique values ('dup')`).catch((e) => e);
    expect(err.cause?.code).toBe("23505");
    expect(err.cause?.constraint).toBe("http_unique_pkey");
    const nul = await viaHttp.db.execute(sql`select ${"a\u0000b"}::text`).catch((e) => e);
    expect(nul.cause?.code).toBe("22021");
    const syntax = await viaHttp.db.execute(sql`selec 1`).catch((e) => e);
    expect(syntax.cause?.code).toBe("42601");
  });

  it("runs a batch as one transaction: all or nothing", async () => {
    const q = neon(env.DATABASE_URL, { fetchOptions: {} });
    await q`create table if not exists http_batch (id int primary key)`;
    await expect(q.transaction([q`insert into http_batch values (1)`, q`insert into http_batch values (1)`])).rejects.toMatchObject({ code: "23505" });
    expect(await q`select count(*)::int as n from http_batch`).toEqual([{ n: 0 }]);
    const [, rows] = await q.transaction([q`insert into http_batch values (2)`, q`select id from http_batch`], { isolationLevel: "Serializable" });
    expect(rows).toEqual([{ id: 2 }]);
  });

  it("refuses other credentials and other databases", async () => {
    const url = new URL(env.DATABASE_URL);
    url.password = "wrong";
    await expect(neon(url.toString())`select 1`).rejects.toMatchObject({ code: "28P01" });
    const other = new URL(env.DATABASE_URL);
    other.pathname = "/postgres";
    await expect(neon(other.toString())`select 1`).rejects.toMatchObject({ code: "28P01" });
  });

  it("sends single statements over HTTP and transactions over the WebSocket", async () => {
    // The endpoint's warm connections carry no application name; the driver's WebSocket sessions name the driver.
    const name = sql`select current_setting('application_name') as name`;
    expect((await viaHttp.db.execute(name)).rows[0].name).toBe("");
    expect((await viaHttp.db.transaction((tx) => tx.execute(name))).rows[0].name).toMatch(/neondatabase/);
    expect((await viaSocket.db.execute(name)).rows[0].name).toMatch(/neondatabase/);
  });
});

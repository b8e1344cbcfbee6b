import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "../generated/prisma/client.js";
import { applyMigrations, type SqlRunner } from "./migrate.js";
import { TIMESTAMP_TYPES, isPoolWaitTimeout, registerSqlClient, serviceBusy, type SqlClient } from "./sql.js";

/** PostgreSQL connections the server keeps at most (DATABASE_POOL_SIZE); Prisma and the list kit share them. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * An embedded database (a folder, or in memory) with the extensions the migrations need (pg_trgm for
 * `search`). Loaded on demand: the PGlite module alone adds some 40 MB to a server that uses PostgreSQL.
 */
export async function openPGlite(dataDir?: string): Promise<PGlite> {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite/contrib/pg_trgm")]);
  return new PGlite({ dataDir, extensions: { pg_trgm } });
}

export interface DatabaseOptions {
  /** postgres:// URL; absent → embedded PGlite. */
  databaseUrl?: string;
  /** Folder for the embedded database; absent → in-memory (tests). */
  dataDir?: string;
  /** PostgreSQL connections at most (default DEFAULT_POOL_SIZE). */
  poolSize?: number;
}

export interface Database {
  prisma: PrismaClient;
  kind: "pglite" | "postgresql";
  /** Called with every SQL statement sent (Prisma's and the SqlClient's); used by tests to catch N+1 regressions. */
  onQuery(listener: (sql: string) => void): () => void;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Opens the database, applies pending migrations, and returns a ready Prisma client. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const listeners = new Set<(sql: string) => void>();
  let prisma: PrismaClient;
  let runner: SqlRunner;
  let closeDriver: () => Promise<void>;
  let kind: Database["kind"];

  if (options.databaseUrl) {
    kind = "postgresql";
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
    runner = {
      exec: async (sql) => void (await pool.query(sql)),
      query: async (sql, params) => (await pool.query(sql, params as unknown[])).rows,
    };
    await applyMigrations(runner);
    await pool.end();
    // Bounded waits: a stalled server fails requests (and /ready) instead of hanging them; a request that
    // waits 5 s for a free connection is answered 503 (serviceBusy). One pool for Prisma and the list kit.
    const connections = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
    });
    connections.on("error", () => {}); // an idle connection that drops is replaced on the next checkout
    prisma = clientWithQueryEvents(new PrismaPg(connections), listeners);
    registerSqlClient(prisma, {
      async query<Row>(statement: Prisma.Sql) {
        for (const listener of listeners) listener(statement.text);
        try {
          const result = await connections.query({ text: statement.text, values: statement.values, types: { getTypeParser: pgTypeParser } });
          return result.rows as Row[];
        } catch (error) {
          throw isPoolWaitTimeout(error) ? serviceBusy() : error;
        }
      },
    } satisfies SqlClient);
    closeDriver = () => connections.end();
  } else {
    kind = "pglite";
    let dir: string | undefined;
    if (options.dataDir) {
      dir = path.resolve(options.dataDir, "pglite");
      fs.mkdirSync(dir, { recursive: true });
    }
    const pglite = await openPGlite(dir);
    runner = {
      exec: async (sql) => void (await pglite.exec(sql)),
      query: async (sql, params) => (await pglite.query(sql, params as unknown[])).rows as Record<string, unknown>[],
    };
    await applyMigrations(runner);
    const { PrismaPGlite } = await import("pglite-prisma-adapter");
    prisma = clientWithQueryEvents(new PrismaPGlite(pglite), listeners);
    const keepTimestampText = Object.fromEntries(TIMESTAMP_TYPES.map((type) => [type, (text: string) => text]));
    registerSqlClient(prisma, {
      async query<Row>(statement: Prisma.Sql) {
        for (const listener of listeners) listener(statement.text);
        // PGlite runs one statement at a time and waits for an open transaction to end, so a statement
        // here never lands inside a Prisma transaction of another request.
        return (await pglite.query<Row>(statement.text, statement.values, { parsers: keepTimestampText })).rows;
      },
    } satisfies SqlClient);
    closeDriver = () => pglite.close();
  }

  return {
    prisma,
    kind,
    onQuery(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async ping() {
      try {
        await prisma.$queryRawUnsafe("SELECT 1");
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}

/** pg's parsers, except timestamps, which stay text for decodeTimestamp (pg would read them as local time). */
function pgTypeParser(type: number, format?: string) {
  return TIMESTAMP_TYPES.includes(type) ? (text: string) => text : pg.types.getTypeParser(type, format as "text");
}

// pglite-prisma-adapter 0.6 is typed against an older @prisma/driver-adapter-utils; the runtime
// protocol is the one Prisma 6.19 speaks, so its factory is used as Prisma's own type.
type AdapterFactory = NonNullable<ConstructorParameters<typeof PrismaClient>[0]>["adapter"];

function clientWithQueryEvents(adapter: object, listeners: Set<(sql: string) => void>): PrismaClient {
  const client = new PrismaClient({ adapter: adapter as unknown as AdapterFactory, log: [{ emit: "event", level: "query" }] });
  client.$on("query", (event) => {
    for (const listener of listeners) listener(event.query);
  });
  return client;
}

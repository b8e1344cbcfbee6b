import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.js";
import { applyMigrations, type SqlRunner } from "./migrate.js";

export interface DatabaseOptions {
  /** postgres:// URL; absent → embedded PGlite. */
  databaseUrl?: string;
  /** Folder for the embedded database; absent → in-memory (tests). */
  dataDir?: string;
  /** Told about each migration as it is applied (the CLI's `migrate` prints them). */
  log?: (line: string) => void;
}

export interface Database {
  prisma: PrismaClient;
  kind: "pglite" | "postgresql";
  /** Called with every SQL statement Prisma sends; used by tests to catch N+1 regressions. */
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
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
    runner = {
      exec: async (sql) => void (await pool.query(sql)),
      query: async (sql, params) => (await pool.query(sql, params as unknown[])).rows,
    };
    await applyMigrations(runner, options.log);
    await pool.end();
    // Bounded waits: a stalled server fails requests (and /ready) instead of hanging them.
    prisma = clientWithQueryEvents(
      new PrismaPg({ connectionString: options.databaseUrl, connectionTimeoutMillis: 5_000, statement_timeout: 30_000 }),
      listeners,
    );
    closeDriver = async () => {};
  } else {
    kind = "pglite";
    let dir: string | undefined;
    if (options.dataDir) {
      dir = path.resolve(options.dataDir, "pglite");
      fs.mkdirSync(dir, { recursive: true });
    }
    const pglite = new PGlite(dir);
    runner = {
      exec: async (sql) => void (await pglite.exec(sql)),
      query: async (sql, params) => (await pglite.query(sql, params as unknown[])).rows as Record<string, unknown>[],
    };
    await applyMigrations(runner, options.log);
    prisma = clientWithQueryEvents(new PrismaPGlite(pglite), listeners);
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

// pglite-prisma-adapter 0.6 is typed against an older @prisma/driver-adapter-utils; the runtime
// protocol is the one Prisma 6.19 speaks, so its factory is used as Prisma's own type.
type AdapterFactory = NonNullable<ConstructorParameters<typeof PrismaClient>[0]>["adapter"];

function clientWithQueryEvents(adapter: PrismaPg | PrismaPGlite, listeners: Set<(sql: string) => void>): PrismaClient {
  const client = new PrismaClient({ adapter: adapter as unknown as AdapterFactory, log: [{ emit: "event", level: "query" }] });
  client.$on("query", (event) => {
    for (const listener of listeners) listener(event.query);
  });
  return client;
}

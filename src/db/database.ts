import os from "node:os";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "../generated/prisma/client.js";
import { applyMigrations, type SqlRunner } from "./migrate.js";
import { keepTemplate, makeCopyItsOwn, readTemplate } from "./embedded-template.js";
import { lockDataDir } from "./data-dir-lock.js";
import { preparedRunner } from "./pglite-statements.js";
import { StartupError } from "../config.js";
import { refuseOutsideStatement, refusingInsideDriverTransactions, refusingInsideDriverTransactionsClient, withinDriverTransaction } from "./transaction-guard.js";
import { TIMESTAMP_TYPES, isBusyDatabase, isConnectionLost, isEndedByServer, isPoolWaitTimeout, CommitOutcomeUnknown, DatabaseBusy, registerSqlClient, type SqlClient } from "./sql.js";

/** PostgreSQL connections the server keeps at most (DATABASE_POOL_SIZE); Prisma and the list kit share them. */
export const DEFAULT_POOL_SIZE = 10;

/** The extensions the migrations need (pg_trgm for `search`). */
const PGLITE_EXTENSIONS = { pg_trgm };

/** Migrations' statements on an embedded database (the server's start, db:check, db:migration, the tests' template). */
export const pgliteRunner = (pglite: PGlite): SqlRunner => ({
  exec: async (sql) => void (await pglite.exec(sql)),
  query: async (sql, params) => (await pglite.query<Record<string, unknown>>(sql, params as unknown[])).rows,
});

/** An embedded database (a folder, or in memory) with the extensions the migrations need. */
export async function openPGlite(dataDir?: string, initialDump?: Blob): Promise<PGlite> {
  // Statements prepared by name (pglite-statements.ts) are planned for their parameters each time, as on PostgreSQL.
  const startParams = [...PGLITE_START_PARAMS, ...(dataDir ? [] : IN_MEMORY_START_PARAMS), "-c", `plan_cache_mode=${PLAN_CACHE_MODE}`];
  return PGlite.create(dataDir, { startParams, extensions: PGLITE_EXTENSIONS, loadDataDir: initialDump });
}

export interface DatabaseOptions {
  /** postgres:// URL; absent → embedded PGlite. */
  databaseUrl?: string;
  /** Folder for the embedded database; absent → in-memory (tests). */
  dataDir?: string;
  /**
   * An in-memory embedded database starts as this dump of a data directory (PGlite's dumpDataDir) instead
   * of empty: the test suite loads one migrated once per run (test/database-template.ts). Migrations it
   * lacks are applied as usual.
   */
  initialDump?: Blob;
  /**
   * Where a new DATA_DIR's database is copied from, and where the first one made the long way is kept for
   * the next (src/db/embedded-template.ts); absent: every new DATA_DIR runs initdb and every migration.
   */
  cacheDir?: string;
  /** Called if another process takes over the DATA_DIR lock while this one runs (default: throw). */
  onLockLost?: (error: Error) => void;
  /** Told about each migration applied. */
  log?: (line: string) => void;
  /** PostgreSQL connections at most (default DEFAULT_POOL_SIZE). */
  poolSize?: number;
}

export interface ListenOptions {
  /**
   * PostgreSQL: every this many milliseconds the listening connection is asked a `SELECT 1`; no answer
   * within as long (or an error) counts as the connection lost, as a closed one does: `onListening(false)`,
   * then a new connection. A half-open connection (the peer gone without a FIN or RST) otherwise raises no
   * event at all, and its notices stop without anyone knowing. 0 or absent: no check.
   */
  heartbeatMs?: number;
}

export interface Database {
  prisma: PrismaClient;
  kind: "pglite" | "postgresql";
  /**
   * Called with every SQL statement sent (Prisma's and the SqlClient's; the SqlClient's with its values):
   * used by tests to catch N+1 regressions, and by the bench to replay our statements from a bare handler.
   */
  onQuery(listener: (sql: string, values?: readonly unknown[]) => void): () => void;
  /** Connections of the PostgreSQL pool (absent for PGlite, which has one in-process connection). */
  poolStats?(): { total: number; idle: number; waiting: number };
  ping(): Promise<boolean>;
  /**
   * What names this database for as long as it lives, the same for every process that opens it and
   * different for any other: on PostgreSQL the cluster's system identifier and the database's name (where
   * PUBLIC may not call pg_control_system(), the deployment id its migration stored, and `note` says so); on
   * PGlite the machine and its data directory (in memory: this process's own). REDIS_PREFIX's default is
   * derived from it (src/db/redis.ts), so a deployment's instances share their counters and two deployments never do.
   */
  identity(): Promise<{ value: string; note?: string }>;
  /**
   * Runs `onNotice` for every NOTIFY on `channel`, from any process using the database. `onListening`
   * says whether notices can arrive: false while the listening connection is down (PostgreSQL; it is
   * opened again every few seconds), so a cache kept fresh by notices stops trusting itself meanwhile.
   * The returned function stops listening.
   */
  listen(channel: string, onNotice: () => void, onListening: (listening: boolean) => void, options?: ListenOptions): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Opens the database, applies pending migrations, and returns a ready Prisma client. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const listeners = new Set<(sql: string, values?: readonly unknown[]) => void>();
  let prisma: PrismaClient;
  let runner: SqlRunner;
  let closeDriver: () => Promise<void>;
  let kind: Database["kind"];
  let poolStats: Database["poolStats"];
  let listen: Database["listen"];
  let identity: Database["identity"];

  if (options.databaseUrl) {
    kind = "postgresql";
    identity = async () => {
      // The cluster's system identifier where every role may read it (EXECUTE granted to PUBLIC, PostgreSQL's
      // default), else the deployment id the migration deployment_id stored. Decided by what PUBLIC may do, not
      // by this connection's role, so instances that connect with different roles still agree. Through the
      // pool, not Prisma: the driver's error carries the SQLSTATE in `code`.
      const [{ open, database }] = (
        await pool.query<{ open: boolean; database: string }>(
          `SELECT coalesce(has_function_privilege('public', to_regprocedure('pg_control_system()'), 'execute'), false) AS open, current_database()::text AS database`,
        )
      ).rows as [{ open: boolean; database: string }];
      let refused = "EXECUTE on pg_control_system() is not granted to PUBLIC";
      if (open) {
        try {
          const { rows } = await pool.query<{ system: string }>("SELECT system_identifier::text AS system FROM pg_control_system()");
          return { value: `postgresql:${rows[0]!.system}/${database}` };
        } catch (error) {
          // A server that offers the function and does not support it (0A000: some managed services) says
          // so to every role alike; any other failure stops the start rather than split a deployment's counters.
          if ((error as { code?: unknown })?.code !== "0A000") throw error;
          refused = `pg_control_system() is not supported here (${(error as Error).message})`;
        }
      }
      const { rows } = await pool.query<{ deployment: string }>("SELECT id::text AS deployment FROM deployment ORDER BY id LIMIT 1");
      if (!rows[0]) {
        throw new StartupError(
          `${refused}, and the table deployment holds no row (the migration deployment_id writes one; was it emptied, or the database restored in part?): insert one (INSERT INTO deployment DEFAULT VALUES) or set REDIS_PREFIX`,
        );
      }
      return {
        value: `postgresql-deployment:${rows[0].deployment}/${database}`,
        note: `${refused}: the database's identity is the deployment id its migration stored (a restored copy shares it)`,
      };
    };
    // Bounded waits: a stalled server fails requests (and /ready) instead of hanging them; a request that
    // waits 5 s for a free connection is answered 503 (DatabaseBusy). One pool for Prisma and the list kit,
    // ours (not the adapter's) so /metrics can report its connections.
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
      // A write that waits this long for a row another transaction holds gives up and is answered 503 with
      // Retry-After (isBusyDatabase), rather than holding its connection until the pool runs dry.
      lock_timeout: LOCK_TIMEOUT_MS,
      // See below. Awaited by pg-pool before it hands the connection out (a 'connect' listener's query raced
      // the caller's first statement: pg's deprecated "client.query() when the client is already executing").
      // jit off: an API's statements are short, and PostgreSQL's JIT compiles any statement estimated above
      // jit_above_cost. The activity consumer's readability check (src/events/subscriptions.ts, readableBy, when it
      // had 50 candidates' visibility conditions in one UNION ALL, 0.35 ms a part to run) took 26 s, all of it compiling.
      onConnect: (client) => client.query(`SET plan_cache_mode = ${PLAN_CACHE_MODE}; SET jit = off`).then(() => {}, () => {}) as unknown as void,
    });
    pool.on("error", () => {}); // an idle connection that drops is replaced on the next checkout
    // Every connection hears its own end, from its first checkout on. pg-pool hands a released connection to
    // the next waiter inside the callback of the answer that freed it, with no 'error' listener until that
    // waiter resumes; a FATAL read in the same chunk (pg_terminate_backend, a failover) was then an uncaught
    // exception that ended the process. Its holder learns of the loss from its next statement instead.
    pool.on("connect", (client) => client.on("error", () => {}));
    // Statements are prepared (preparedName), but planned for their parameters on every execution: a
    // generic plan cannot see a search pattern, and PostgreSQL's own choice picked one that read the whole
    // scope for `search` at 10^6 pages (850 ms instead of a few). Set on each new connection, before the
    // pool hands it out (`onConnect` above); not as the `options` startup parameter, which an `options` in
    // DATABASE_URL would replace and PgBouncer refuses.
    // The migration advisory lock belongs to a session: one connection runs all of it.
    const connection = await pool.connect().catch(async (error: Error) => {
      await pool.end();
      throw new StartupError(`Cannot connect to PostgreSQL at ${describeUrl(options.databaseUrl!)} (DATABASE_URL): ${error.message}`, { cause: error });
    });
    try {
      runner = {
        exec: async (sql) => void (await connection.query(sql)),
        query: async (sql, params) => (await connection.query(sql, params as unknown[])).rows,
      };
      await applyMigrations(runner, options.log);
      connection.release();
    } catch (error) {
      connection.release();
      await pool.end();
      throw error;
    }
    prisma = clientWithQueryEvents(new PrismaPg(pool), listeners);
    listen = (channel, onNotice, onListening, listenOptions) => listenOnPostgres(options.databaseUrl!, channel, onNotice, onListening, listenOptions);
    const preparedName = preparedNames();
    const run = async <Row>(on: pg.Pool | pg.PoolClient, statement: Prisma.Sql): Promise<Row[]> => {
      // `text` is a getter that joins the statement's pieces into a new string on every read; read once, the
      // string is flattened once (by the first listener) and hashed once (the prepared name), not thrice.
      const { text, values } = statement;
      for (const listener of listeners) listener(text, values);
      const result = await on.query({ name: preparedName(text), text, values, types: { getTypeParser: pgTypeParser } });
      return result.rows as Row[];
    };
    registerSqlClient(prisma, {
      async query<Row>(statement: Prisma.Sql) {
        // The pool's connection, not the open transaction's: refused from inside one (transaction-guard.ts).
        refuseOutsideStatement();
        try {
          return await run<Row>(pool, statement);
        } catch (error) {
          // A connection lost without an answer stays as it is: a read is 503 (clientFaultFromDatabase), a
          // write that commits on its own has an unknown outcome (createRecord).
          throw isPoolWaitTimeout(error) || isBusyDatabase(error) ? new DatabaseBusy({ cause: error }) : error;
        }
      },
      async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
        // A second transaction from inside one commits apart from it (transaction-guard.ts).
        refuseOutsideStatement();
        const connection = await pool.connect().catch((error: Error) => {
          throw isPoolWaitTimeout(error) || isConnectionLost(error) ? new DatabaseBusy() : error;
        });
        let commitSent = false;
        let broken: Error | undefined;
        // A connection ended by the server between two statements (a failover, pg_terminate_backend) reports
        // it as an 'error' event, not through a query: unheard, that event would end the process.
        const ended = (error: Error) => void (broken ??= error);
        connection.on("error", ended);
        // A statement sent after the transaction ended (a branch of the work still running after another
        // failed) is refused: it would run on a connection handed to another request.
        let finished = false;
        try {
          await connection.query("BEGIN");
          const client: SqlClient = {
            query: (statement) => (finished ? Promise.reject(new Error("this transaction has ended")) : run(connection, statement)),
            transaction: () => Promise.reject(new Error("transactions do not nest (src/common/write-path.ts joins the open one)")),
          };
          const result = await withinDriverTransaction(() => work(client));
          commitSent = true;
          await connection.query("COMMIT");
          return result;
        } catch (error) {
          if (isConnectionLost(error) || isEndedByServer(error)) {
            broken = error as Error;
            // Lost without an answer to COMMIT: it may have been made. Any other loss: nothing was kept.
            throw commitSent && isConnectionLost(error) ? new CommitOutcomeUnknown({ cause: error }) : new DatabaseBusy({ cause: error });
          }
          if (!commitSent) await connection.query("ROLLBACK").catch((rollbackError: Error) => void (broken = rollbackError));
          throw isBusyDatabase(error) ? new DatabaseBusy({ cause: error }) : error;
        } finally {
          finished = true;
          connection.off("error", ended);
          // A connection that failed mid-transaction is dropped, not handed to the next request.
          connection.release(broken);
        }
      },
    } satisfies SqlClient);
    poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    closeDriver = () => pool.end();
  } else {
    kind = "pglite";
    let dir: string | undefined;
    const inMemory = `pglite-memory:${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
    identity = async () => ({ value: dir ? `pglite:${os.hostname()}:${dir}` : inMemory });
    let unlock = async () => {};
    if (options.dataDir) {
      dir = path.resolve(options.dataDir, "pglite");
      try {
        fs.mkdirSync(dir, { recursive: true });
      } catch (error) {
        throw new StartupError(`DATA_DIR ${path.resolve(options.dataDir)} cannot be used: ${(error as Error).message}`, { cause: error });
      }
      unlock = await lockDataDir(path.resolve(options.dataDir), options.onLockLost);
    }
    let pglite: PGlite;
    try {
      const log = options.log ?? (() => {});
      const isNew = dir !== undefined && !fs.existsSync(path.join(dir, "PG_VERSION"));
      let copied = false;
      if (isNew) {
        // Made in a folder beside it and renamed into place when whole: a start killed meanwhile leaves no
        // half-made database that the next start would take for an existing one.
        const partial = `${dir}.partial`;
        fs.rmSync(partial, { recursive: true, force: true });
        copied = options.cacheDir ? await copyTemplate(partial, options.cacheDir, log) : false;
        if (!copied) await initialiseInChildProcess(partial);
        try {
          fs.rmdirSync(dir!);
        } catch (error) {
          throw new StartupError(`${dir} holds files but no database (no PG_VERSION): move them away and start again`, { cause: error });
        }
        fs.renameSync(partial, dir!);
      }
      pglite = await openPGlite(dir, dir ? undefined : options.initialDump);
      runner = pgliteRunner(pglite);
      await applyMigrations(runner, log);
      if (isNew && !copied && options.cacheDir) {
        // The next new DATA_DIR of this install copies this one; a cache folder that cannot be written costs
        // only that (each new DATA_DIR is then made the long way).
        await keepTemplate(pglite, options.cacheDir).then(
          (file) => log(`kept a copy of the new database as the template for the next new DATA_DIR (${file})`),
          (error: Error) => log(`could not keep the new database as a template in CACHE_DIR (${error.message}): each new DATA_DIR is made from nothing`),
        );
      }
    } catch (error) {
      await unlock();
      throw error;
    }
    prisma = clientWithQueryEvents(new PrismaPGlite(pglite), listeners);
    // One in-process connection: notices of its own transactions arrive once they commit.
    listen = async (channel, onNotice, onListening) => {
      const stop = await pglite.listen(channel, () => onNotice());
      onListening(true);
      return async () => {
        onListening(false);
        await stop();
      };
    };
    const keepTimestampText = Object.fromEntries(TIMESTAMP_TYPES.map((type) => [type, (text: string) => text]));
    const prepared = preparedRunner(pglite, keepTimestampText);
    const preparedName = preparedNames();
    const run = async <Row>(statement: Prisma.Sql, inTransaction: boolean): Promise<Row[]> => {
      const { text, values } = statement; // read once: see the PostgreSQL client's run above
      for (const listener of listeners) listener(text, values);
      return prepared.run<Row>(text, values, { name: preparedName(text), inTransaction });
    };
    registerSqlClient(prisma, {
      // PGlite runs one statement at a time and waits for an open transaction to end, so a statement
      // here never lands inside a transaction of another request.
      query: async (statement) => {
        // Would wait for the open transaction, which waits for it (transaction-guard.ts).
        refuseOutsideStatement();
        return run(statement, false);
      },
      transaction: (work) => {
        // Would wait for the open transaction, which waits for it (transaction-guard.ts).
        refuseOutsideStatement();
        return pglite.transaction(async () => {
          // A statement sent after the transaction ended (a branch of the work still running after another
          // failed) is refused, as PGlite's own transaction does: it holds no lock of that transaction.
          let finished = false;
          try {
            return await withinDriverTransaction(() =>
              work({
                query: (statement) => (finished ? Promise.reject(new Error("this transaction has ended")) : run(statement, true)),
                transaction: () => Promise.reject(new Error("transactions do not nest (src/common/write-path.ts joins the open one)")),
              }),
            );
          } finally {
            finished = true;
          }
        });
      },
    } satisfies SqlClient);
    closeDriver = async () => {
      await pglite.close();
      await unlock();
    };
  }

  let closing: Promise<void> | undefined;
  return {
    prisma,
    kind,
    poolStats,
    listen,
    identity,
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
    // Once: a second close (a test's, a shutdown racing a lost lock) waits for the first instead of
    // ending the pool twice, which pg refuses.
    close() {
      return (closing ??= (async () => {
        await prisma.$disconnect();
        await closeDriver();
      })());
    },
  };
}

/**
 * PGlite's own start parameters plus a smaller buffer cache. PostgreSQL's default shared_buffers (128 MB)
 * lives inside PGlite's WebAssembly heap and is resident once touched; 16 MB keeps an idle server well
 * under 300 MB (docs/performance.md, "Idle memory"), and pages beyond it still come from the OS file cache.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];

/**
 * A database in memory ends with its process: no crash leaves a torn page to repair, and nothing replays or
 * streams its WAL. So it writes the least WAL (no full pages after a checkpoint, no WAL for a table created and
 * filled in one transaction) and does not fill each new 16 MB WAL segment with zeros first, which in PGlite's
 * in-memory file system grew the segment a few kilobytes at a time, copying it at each step. The test suite's
 * databases are all in memory: a shared suite's process spent ≈4 % less CPU (test/plans, contract, totals).
 */
const IN_MEMORY_START_PARAMS = ["-c", "full_page_writes=off", "-c", "wal_level=minimal", "-c", "max_wal_senders=0", "-c", "wal_init_zero=off"];

/**
 * Makes a new database in `dir` as a copy of the template in `cacheDir`, and says whether it did. A template
 * that cannot be read or loaded costs only the time: the caller makes the database the long way and keeps it
 * as the template, in place of the damaged one.
 */
async function copyTemplate(dir: string, cacheDir: string, log: (line: string) => void): Promise<boolean> {
  try {
    const template = readTemplate(cacheDir);
    if (!template) return false;
    const pglite = await openPGlite(dir, template);
    try {
      await makeCopyItsOwn(pglite);
    } finally {
      await pglite.close();
    }
    log(`created the embedded database from the template in ${cacheDir}`);
    return true;
  } catch (error) {
    log(`could not copy the template in ${cacheDir} (${(error as Error).message}): making the database from nothing`);
    fs.rmSync(dir, { recursive: true, force: true });
    return false;
  }
}

/**
 * Creates the embedded cluster (initdb) in a short-lived child process: initdb peaks near 800 MB of
 * WebAssembly memory, which a long-running process would keep resident until a garbage collection that
 * an idle server may never run. The child's memory goes back to the system when it exits.
 *
 * The child is plain JavaScript given on the command line, so it needs no TypeScript loader whichever way
 * this process was started (compiled, tsx, the CLI's registered loader); it resolves PGlite from here.
 */
async function initialiseInChildProcess(dir: string): Promise<void> {
  const initdb = `const { PGlite } = await import("@electric-sql/pglite"); await (await PGlite.create(process.argv[1])).close();`;
  const here = path.dirname(fileURLToPath(import.meta.url));
  await promisify(execFile)(process.execPath, ["--input-type=module", "--eval", initdb, dir], { cwd: here }).catch((error: Error & { stderr?: string }) => {
    throw new Error(`could not create the embedded database in ${dir}: ${error.stderr?.trim() || error.message}`, { cause: error });
  });
}

/**
 * LISTEN on a connection of its own (a pooled one would be handed to other work). When it drops, the
 * listener is told (`onListening(false)`) and the connection is opened again every 2 s until it holds.
 */
async function listenOnPostgres(
  databaseUrl: string,
  channel: string,
  onNotice: () => void,
  onListening: (listening: boolean) => void,
  { heartbeatMs = 0 }: ListenOptions = {},
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  /** Ends a connection, and after a second destroys its socket: `end()` waits for a close a stalled peer never sends. */
  const drop = async (connection: pg.Client) => {
    await Promise.race([connection.end().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    (connection as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };
  const connect = async () => {
    retry = undefined;
    // Named, so it can be told apart in pg_stat_activity (its last query is the heartbeat's, not LISTEN).
    const candidate = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000, application_name: LISTEN_APPLICATION_NAME });
    const lost = () => {
      if (client !== candidate) return;
      client = undefined;
      clearInterval(heartbeat);
      heartbeat = undefined;
      onListening(false);
      void drop(candidate);
      if (!stopped) retry = setTimeout(() => void connect(), 2_000);
    };
    // The heartbeat: one `SELECT 1` at a time; unanswered within an interval, the connection is lost.
    let beating = false;
    const beat = () => {
      if (client !== candidate || beating) return;
      beating = true;
      const silent = setTimeout(lost, heartbeatMs).unref();
      candidate.query("SELECT 1").then(
        () => {
          clearTimeout(silent);
          beating = false;
        },
        () => {
          clearTimeout(silent);
          lost();
        },
      );
    };
    candidate.on("error", lost);
    candidate.on("end", lost);
    candidate.on("notification", (message) => message.channel === channel && onNotice());
    client = candidate;
    try {
      await candidate.connect();
      await candidate.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      if (stopped || client !== candidate) return void candidate.end().catch(() => {});
      onListening(true);
      if (heartbeatMs > 0) {
        heartbeat = setInterval(beat, heartbeatMs);
        heartbeat.unref();
      }
    } catch {
      lost();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    clearInterval(heartbeat);
    const open = client;
    client = undefined;
    onListening(false);
    if (open) await drop(open);
  };
}

/** The `application_name` of the connection `listen` holds (pg_stat_activity). */
export const LISTEN_APPLICATION_NAME = "hubgraph listen";

/** How long a statement waits for a row lock before the write is answered 503 (the pool's `lock_timeout`). */
export const LOCK_TIMEOUT_MS = 5_000;

/** How the pool's connections plan prepared statements (see the pool's "connect" handler). */
export const PLAN_CACHE_MODE = "force_custom_plan";

/** Statement texts a database prepares (on each pool connection, or in PGlite), by name; past this many, texts run unprepared. */
export const MAX_PREPARED = 500;

/**
 * The names under which one opened database prepares its SqlClient statements: PostgreSQL parses them
 * once per connection instead of on every request (a list's statement is the same text for every caller
 * of a kind; only its parameters change), which saves part of the database's CPU per list answer
 * (docs/performance.md); PGlite once per database (pglite-statements.ts). Texts are few (one per list
 * shape), but bounded all the same: a text seen after MAX_PREPARED others runs unnamed, as before. Each
 * execution is still planned for its own parameters (PLAN_CACHE_MODE). What it costs PostgreSQL: at most
 * MAX_PREPARED parsed statements per pool connection. Behind PgBouncer in transaction pooling this needs
 * PgBouncer 1.21 or later with `max_prepared_statements` set.
 */
function preparedNames(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED) names.set(text, (name = `hubgraph_${names.size + 1}`));
    return name;
  };
}

/** host:port/database of a PostgreSQL URL, without the credentials. */
function describeUrl(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  return `${hostname}:${port || 5432}${pathname}`;
}

// pglite-prisma-adapter 0.6 is typed against an older @prisma/driver-adapter-utils; the runtime
// protocol is the one Prisma 6.19 speaks, so its factory is used as Prisma's own type.
type AdapterFactory = NonNullable<ConstructorParameters<typeof PrismaClient>[0]>["adapter"];

function clientWithQueryEvents(adapter: PrismaPg | PrismaPGlite, listeners: Set<(sql: string, values?: readonly unknown[]) => void>): PrismaClient {
  const client = new PrismaClient({ adapter: refusingInsideDriverTransactions(adapter as unknown as AdapterFactory & object), log: [{ emit: "event", level: "query" }] });
  client.$on("query", (event) => {
    for (const listener of listeners) listener(event.query, parsedParams(event.params));
  });
  return refusingInsideDriverTransactionsClient(client);
}

/** pg's parsers, except timestamps, which stay text for decodeTimestamp (pg would read them as local time). */
function pgTypeParser(type: number, format?: string) {
  return TIMESTAMP_TYPES.includes(type) ? (text: string) => text : pg.types.getTypeParser(type, format as "text");
}

/** Prisma's query event gives its values as JSON text. */
function parsedParams(params: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(params);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

import type { PrismaClient } from "../generated/prisma/client.js";
import { Prisma } from "../generated/prisma/client.js";

/**
 * One SQL statement straight on the driver (pg's pool or PGlite), for the read paths where Prisma's query
 * compiler would cost more Node CPU than the statement itself (lists, reads by id, the bearer lookup).
 * Statements are `Prisma.sql` fragments, so values are always parameters. Rows come back as the driver
 * parses them, except timestamps, which stay text (`decodeTimestamp` reads them as the UTC Prisma stores).
 * Every statement is reported to the same listeners as Prisma's (`Database.onQuery`).
 */
export interface SqlClient {
  query<Row = Record<string, unknown>>(statement: Prisma.Sql): Promise<Row[]>;
  /**
   * Runs `work` in one transaction on one connection and commits, or rolls back when it throws. Its
   * statements go through the client `work` is given (`sqlOf(ctx)` inside the write path). No Prisma call
   * may run inside: on PGlite it would wait for this transaction to end, which waits for it. Errors:
   * DatabaseBusy when no connection or the transaction could not be had or was lost before COMMIT was
   * sent; CommitOutcomeUnknown when the connection was lost after.
   */
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
}

const clients = new WeakMap<PrismaClient, SqlClient>();

/** Registers the driver-level client of a Prisma client (src/db/database.ts does, when it opens one). */
export function registerSqlClient(prisma: PrismaClient, client: SqlClient): void {
  clients.set(prisma, client);
}

/** How a statement run by background work (not for a request) begins: logs and statement counts tell them apart. */
export const BACKGROUND_MARK = "/* hubgraph background */";

/**
 * The driver-level client for background work (the outbox dispatcher, the subscriptions' reader, timed
 * checks): every statement, in its transactions too, begins with BACKGROUND_MARK, so a request's statement
 * count (test/server.ts recordQueries) and pg_stat_statements tell them from the request's own.
 */
export function backgroundSqlOf(prisma: PrismaClient): SqlClient {
  return marked(sqlClientOf(prisma));
}

function marked(client: SqlClient): SqlClient {
  return {
    query: (statement) => client.query(Prisma.sql`${Prisma.raw(BACKGROUND_MARK)} ${statement}`),
    transaction: (work) => client.transaction((inner) => work(marked(inner))),
  };
}

/** The driver-level client that shares `prisma`'s connections. */
export function sqlClientOf(prisma: PrismaClient): SqlClient {
  const client = clients.get(prisma);
  if (!client) throw new Error("this Prisma client was not opened by openDatabase (src/db/database.ts)");
  return client;
}

/**
 * A statement fragment kept for reuse (a select list, a visibility condition), with each of its texts made one
 * flat string. A fragment is built by joining many small texts, and V8 keeps such a join as a tree of pieces:
 * a statement that includes the fragment is flattened into one string when it is sent, and flattening walks
 * every piece of the tree again on every request (≈ 10 µs per REST read, docs/performance.md) — unless the
 * pieces kept are flat already.
 */
export function flattenedSql(fragment: Prisma.Sql): Prisma.Sql {
  return new Prisma.Sql(
    // Through UTF-16 code units, which any string survives unchanged (UTF-8 would replace a lone surrogate).
    fragment.strings.map((text) => Buffer.from(text, "utf16le").toString("utf16le")),
    fragment.values,
  );
}

/** PostgreSQL's type ids of `timestamp` and `timestamptz`: read as text, decoded by `decodeTimestamp`. */
export const TIMESTAMP_TYPES = [1114, 1184];

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;

/**
 * A timestamp read from the database that keeps its ISO-8601 text. `JSON.stringify` calls a Date's
 * `toJSON`, which formats it anew (≈1.5 µs; 50–75 per page, ≈10 % of a GraphQL list answer's CPU), and
 * the REST renderer asks `toISOString`; this one answers the text it was read from. Should the date be
 * changed after it was read (`setUTCHours` …), it formats itself as any Date does.
 */
class StoredTimestamp extends Date {
  readonly #time: number;
  readonly #iso: string;
  constructor(time: number, iso: string) {
    super(time);
    this.#time = time;
    this.#iso = iso;
  }
  override toISOString(): string {
    return this.getTime() === this.#time ? this.#iso : super.toISOString();
  }
  override toJSON(): string {
    return this.getTime() === this.#time ? this.#iso : (super.toJSON() as string);
  }
}

/** PostgreSQL leaves out the fraction's trailing zeros (`.12`, `.1`, none): its milliseconds as three digits. */
const FRACTIONS = ["", "0", "00", "", ".000"];

/**
 * A `timestamp(3)` as PostgreSQL writes it (text column `2024-05-01 10:00:00.123`, or in JSON
 * `2024-05-01T10:00:00.123`): Prisma stores UTC without a zone, so it is read as UTC. Read digit by
 * digit: a list of 25 records holds 75 of them, and Date's own parser takes about three times as long.
 */
export function decodeTimestamp(text: string): Date {
  // The fast path takes `YYYY-MM-DD HH:MM:SS[.f[f[f]]]` only: a zone (`+02`, timestamptz) or an era (` BC`) goes the slow way.
  if (text.length < 19 || text.length > 23 || text.length === 20 || (text.length > 19 && text.charCodeAt(19) !== 46) || text.charCodeAt(4) !== 45 || text.charCodeAt(13) !== 58) {
    // PostgreSQL writes a zone as `+02` or `+05:30`; JavaScript's parser takes only `+02:00`. No zone: UTC.
    let iso = text.replace(" ", "T");
    const zone = /([+-]\d\d)(?::?(\d\d))?$/.exec(iso.slice(19));
    if (zone) iso = `${iso.slice(0, iso.length - zone[0].length)}${zone[1]}:${zone[2] ?? "00"}`;
    else if (!/[Zz]$/.test(iso)) iso += "Z";
    return new Date(iso);
  }
  const year = digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3);
  let millis = 0;
  if (text.length > 20) millis += digit(text, 20) * 100;
  if (text.length > 21) millis += digit(text, 21) * 10;
  if (text.length > 22) millis += digit(text, 22);
  let time = Date.UTC(
    year,
    digit(text, 5) * 10 + digit(text, 6) - 1,
    digit(text, 8) * 10 + digit(text, 9),
    digit(text, 11) * 10 + digit(text, 12),
    digit(text, 14) * 10 + digit(text, 15),
    digit(text, 17) * 10 + digit(text, 18),
    millis,
  );
  // Date.UTC reads the years 0-99 as 1900-1999.
  if (year < 100) time = new Date(time).setUTCFullYear(year);
  return new StoredTimestamp(time, `${text.slice(0, 10)}T${text.slice(11)}${FRACTIONS[23 - text.length]}Z`);
}

/** A moment as the text of a `timestamp(3)` (UTC, no zone, milliseconds), as Prisma writes them. */
export const utcTimestampText = (moment: Date) => moment.toISOString().slice(0, 23).replace("T", " ");

/** A moment as a `timestamp(3)` parameter (UTC, no zone), as Prisma writes them. */
export const utcTimestamp = (moment: Date) => Prisma.sql`${utcTimestampText(moment)}::timestamp(3)`;

/**
 * The pool had no free connection within its wait, or the database was busy or gone for a moment
 * (isBusyDatabase, a transaction lost before COMMIT was sent): the server is busy, not broken, and nothing
 * of the statement was kept. This layer names no HTTP status: the answer's makers turn it into 503 with
 * Retry-After (src/common/database-errors.ts, `databaseFailure` → `serviceBusy`).
 */
export class DatabaseBusy extends Error {
  constructor(options?: { cause?: unknown }) {
    super("The server is busy; try again shortly.", options);
    this.name = "DatabaseBusy";
  }
}

/** pg-pool's error when no connection became free within `connectionTimeoutMillis`. */
export const isPoolWaitTimeout = (error: unknown) => /timeout exceeded when trying to connect/i.test(String((error as Error)?.message ?? ""));

/**
 * The connection was lost after COMMIT was sent: the write may or may not have been made, and only
 * reading it again can tell. Not busy (a plain retry could write twice); an Idempotency-Key makes the
 * retry safe either way. Answered as src/common/database-errors.ts `outcomeUnknown` says.
 */
export class CommitOutcomeUnknown extends Error {
  constructor(options?: { cause?: unknown }) {
    super("The connection was lost while a write was committing.", options);
    this.name = "CommitOutcomeUnknown";
  }
}

/**
 * The server ended the session and said so (pg_terminate_backend 57P01, a shutdown or crash 57P02/57P03, a
 * connection exception 08xxx): the statement it answered was not committed, so nothing it did was kept.
 */
export function isEndedByServer(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code !== undefined && /^(57P0[1-3]|08\d\d\d)$/.test(code);
}

/**
 * The connection broke without an answer to the statement under way (a reset, the server gone): if that
 * statement was a COMMIT or a write committing on its own, it may or may not have been made.
 */
export function isConnectionLost(error: unknown): boolean {
  if ((error as { code?: unknown })?.code !== undefined && !/^E[A-Z]+$/.test(String((error as { code?: unknown }).code))) return false;
  return /Connection terminated|connection (was )?(closed|lost)|ECONNRESET|EPIPE|Client has encountered a connection error/i.test(String((error as Error)?.message ?? ""));
}

/**
 * The database gave up waiting (lock_timeout 55P03, statement_timeout 57014), ran out of room for work
 * (53xxx), rolled the transaction back to break a deadlock or a serialization conflict (40P01, 40001), or
 * ended the session with an answer (isEndedByServer): busy or gone for a moment, and nothing of the
 * statement was kept. 503 with Retry-After: the same request again may well succeed.
 */
export function isBusyDatabase(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === "55P03" || code === "57014" || code === "40P01" || code === "40001" || (code !== undefined && /^53\d\d\d$/.test(code)) || isEndedByServer(error);
}

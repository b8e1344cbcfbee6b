import type { PrismaClient } from "../generated/prisma/client.js";
import { Prisma } from "../generated/prisma/client.js";
import { ApiError } from "../common/errors.js";

/**
 * One SQL statement straight on the driver (pg's pool or PGlite), for the read paths where Prisma's query
 * compiler would cost more Node CPU than the statement itself (lists, reads by id, the bearer lookup).
 * Statements are `Prisma.sql` fragments, so values are always parameters. Rows come back as the driver
 * parses them, except timestamps, which stay text (`decodeTimestamp` reads them as the UTC Prisma stores).
 * Every statement is reported to the same listeners as Prisma's (`Database.onQuery`).
 */
export interface SqlClient {
  query<Row = Record<string, unknown>>(statement: Prisma.Sql): Promise<Row[]>;
}

const clients = new WeakMap<PrismaClient, SqlClient>();

/** Registers the driver-level client of a Prisma client (src/db/database.ts does, when it opens one). */
export function registerSqlClient(prisma: PrismaClient, client: SqlClient): void {
  clients.set(prisma, client);
}

/** The driver-level client that shares `prisma`'s connections. */
export function sqlClientOf(prisma: PrismaClient): SqlClient {
  const client = clients.get(prisma);
  if (!client) throw new Error("this Prisma client was not opened by openDatabase (src/db/database.ts)");
  return client;
}

/** PostgreSQL's type ids of `timestamp` and `timestamptz`: read as text, decoded by `decodeTimestamp`. */
export const TIMESTAMP_TYPES = [1114, 1184];

/**
 * A `timestamp(3)` as PostgreSQL writes it (text column `2024-05-01 10:00:00.123`, or in JSON
 * `2024-05-01T10:00:00.123`): Prisma stores UTC without a zone, so it is read as UTC.
 */
export function decodeTimestamp(text: string): Date {
  const iso = text.replace(" ", "T");
  return new Date(/[Zz]|[+-]\d\d(:?\d\d)?$/.test(iso.slice(10)) ? iso : `${iso}Z`);
}

/** A moment as a `timestamp(3)` parameter (UTC, no zone), as Prisma writes them. */
export const utcTimestamp = (moment: Date) => Prisma.sql`${moment.toISOString().slice(0, 23).replace("T", " ")}::timestamp(3)`;

/**
 * The pool had no free connection within its wait: the server is busy, not broken. 503 with Retry-After,
 * on REST (src/app.ts sends the header) and GraphQL (yoga answers the `http` extension).
 */
export function serviceBusy(): ApiError {
  const error = new ApiError(503, "The server is busy; try again shortly.");
  error.extensions.http = { status: 503, headers: { "Retry-After": "1" } };
  return error;
}

/** pg-pool's error when no connection became free within `connectionTimeoutMillis`. */
export const isPoolWaitTimeout = (error: unknown) => /timeout exceeded when trying to connect/i.test(String((error as Error)?.message ?? ""));

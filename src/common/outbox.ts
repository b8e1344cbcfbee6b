import crypto from "node:crypto";
import { Prisma } from "../generated/prisma/client.js";
import type { SqlClient } from "../db/sql.js";
import { decodeTimestamp } from "../db/sql.js";
import type { SharedRedis } from "../db/redis.js";
import type { DomainEvent, EventAudience } from "./events.js";

/**
 * Reading the outbox without ever skipping an event.
 *
 * Event ids and transaction ids are taken before commit, so with concurrent writers an event with a lower
 * id (or xid) can commit after one with a higher id has been read. A reader therefore takes only events of
 * transactions older than the oldest one still running (`pg_snapshot_xmin(pg_current_snapshot())`): every
 * such transaction has ended, so no event can still appear below that point, and the reader moves its
 * cursor in (xid, id) order up to it. A long transaction holds delivery back while it runs; it never makes
 * a reader skip.
 *
 * Order per record: the write path locks the record (or inserts it) as its transaction's first write,
 * which is when PostgreSQL gives the transaction its id; a later write of the same record waits for that
 * lock, so it gets a later xid. (xid, id) order is therefore each record's commit order — for writes that
 * run in a transaction of their own. A write that joins an open one (`inWriteTransaction`: a write calling
 * another) has its xid from its first record already; its events about records it locks later can come
 * before a concurrent write's of those records that committed first. Multi-record writes (a group's
 * deletion) must lock every record they will touch in their first statement.
 */
export interface OutboxCursor {
  /** The last event's transaction id and event id, as text (64-bit). */
  xid: string;
  id: string;
}

/** An event as the outbox holds it: the appended event with its ids, audience and time. */
export interface StoredEvent extends Required<DomainEvent> {
  id: string;
  xid: string;
  audience: EventAudience;
  occurredAt: Date;
  /** The record's author (`outbox.author_id`): read by `readableBy` only, never delivered (`shownTo` drops it). */
  authorId?: number | null;
  /** A deleted record's own readers (`outbox.reader_ids`, D14): read by `readableBy` only, never delivered. */
  readerIds?: number[] | null;
}

/**
 * An event as anyone outside the server's own reading of who is told receives it (subscribers, webhooks,
 * plugin listeners): without its author and a deleted record's readers, which `readableBy` alone reads.
 */
export type PublicEvent = Omit<StoredEvent, "authorId" | "readerIds">;

/** The event without what only `readableBy` reads (`PublicEvent`). */
export function publicEvent(stored: StoredEvent): PublicEvent {
  const { authorId: _author, readerIds: _readers, ...event } = stored;
  return event;
}

export const OUTBOX_START: OutboxCursor = { xid: "0", id: "0" };

/**
 * The oldest transaction still running in this database, as a 64-bit xid: an event whose `xid` is below
 * it has committed or rolled back, and none can still appear below it. It is the snapshot's xmin less the
 * transactions of other databases: transaction ids are numbered per server, and a long transaction
 * elsewhere on a shared PostgreSQL server (a report, a dump, another application, another test file) held
 * delivery back for as long as it ran, although it can write nothing here. A running xid is left out only
 * when pg_stat_activity shows it to a backend of another database (a backend never changes database);
 * one it does not show (a prepared transaction, a row hidden from this role) still counts. The snapshot
 * lists others' xids but not the reader's own, which its xmin covers: it is added back, so a reader
 * inside a write never reads its own uncommitted events. On PGlite (one connection) this is the xmin.
 */
export const RUNNING_HERE_FROM = Prisma.sql`(
  SELECT LEAST(
           COALESCE(
             (SELECT min(running::text::bigint) FROM pg_snapshot_xip(snapshot.now) AS running
               WHERE running::text::bigint % 4294967296 NOT IN (
                       SELECT backend_xid::text::bigint FROM pg_stat_activity
                        WHERE backend_xid IS NOT NULL AND datname IS NOT NULL AND datname <> current_database())),
             pg_snapshot_xmax(snapshot.now)::text::bigint),
           pg_current_xact_id_if_assigned()::text::bigint)
    -- OFFSET 0 keeps the snapshot one value: inlined, each use would take a snapshot of its own.
    FROM (SELECT pg_current_snapshot() AS now OFFSET 0) AS snapshot)`;

/** Up to `limit` events after `cursor` whose transactions have all ended, in (xid, id) order, and the cursor after them. */
export async function readCommittedEvents(sql: SqlClient, cursor: OutboxCursor, limit = 100): Promise<{ events: StoredEvent[]; cursor: OutboxCursor }> {
  const rows = await sql.query<Omit<StoredEvent, "occurredAt"> & { occurredAt: string }>(Prisma.sql`
    SELECT id::text AS id, xid::text AS xid, type, area, record_id AS "recordId", actor_id AS "actorId", anonymous, scope, scope_id AS "scopeId",
           visibility, published, audience, subject_id AS "subjectId", author_id AS "authorId", reader_ids AS "readerIds", changed, payload, occurred_at AS "occurredAt"
      FROM outbox
     WHERE (xid, id) > (${cursor.xid}::bigint, ${cursor.id}::bigint)
       AND xid < ${RUNNING_HERE_FROM}
     -- outbox.xid, not xid: the select list's xid is text ("100" < "99"), and a batch in text order moved the
     -- cursor past events it had not read (test/write-path.test.ts, "reads in the transactions' numeric order").
     ORDER BY outbox.xid, outbox.id
     LIMIT ${limit}`);
  const events = rows.map((row) => ({ ...row, occurredAt: decodeTimestamp(row.occurredAt) }));
  const last = events.at(-1);
  return { events, cursor: last ? { xid: last.xid, id: last.id } : cursor };
}

/** How soon a reader (the dispatcher, the subscriptions) looks again when events it could not read yet are waiting behind a transaction in flight. */
export const PENDING_RETRY_MS = 10;

/** A reader of the outbox run by `serialReads`. */
export interface SerialReads<T> {
  /** Reads now, or, while a read runs, once more after it (not once per call); answers the running read's value. */
  run(): Promise<T | undefined>;
  /** The read running now, if any. */
  current(): Promise<T | undefined> | null;
  stop(): void;
}

/**
 * Runs an outbox reader (the dispatcher's drains, the subscriptions' reads) one read at a time. A read
 * answers its value and whether events are written after what it read that it could not read yet (a
 * transaction in flight holds them back): then it reads again after PENDING_RETRY_MS, twice as late each time
 * that lasts (a long transaction anywhere on the server holds them), up to `maxPendingDelayMs` (the poll).
 * A read that throws is reported to `failed`.
 */
export function serialReads<T>(read: () => Promise<{ value: T; pending: boolean }>, maxPendingDelayMs: number, failed: (error: unknown) => void): SerialReads<T> {
  let running: Promise<T | undefined> | null = null;
  let again = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = 0;
  const run = (): Promise<T | undefined> => {
    if (stopped) return Promise.resolve(undefined);
    if (running) {
      again = true;
      return running;
    }
    running = read()
      .then(
        ({ value, pending }) => {
          delay = pending ? Math.min(Math.max(maxPendingDelayMs, PENDING_RETRY_MS), delay ? delay * 2 : PENDING_RETRY_MS) : 0;
          if (pending && !retry && !stopped) {
            retry = setTimeout(() => {
              retry = undefined;
              void run();
            }, delay);
            retry.unref();
          }
          return value;
        },
        (error: unknown) => {
          failed(error);
          return undefined;
        },
      )
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          void run();
        }
      });
    return running;
  };
  return {
    run,
    current: () => running,
    stop() {
      stopped = true;
      clearTimeout(retry);
    },
  };
}

/** Whether any event lies after `cursor`, readable or not yet (the outbox's (xid, id) index answers it): a reader that found nothing more to read looks again in a moment when so. */
export async function writtenAfter(sql: SqlClient, cursor: OutboxCursor): Promise<boolean> {
  const [row] = await sql.query<{ written: boolean }>(
    Prisma.sql`SELECT EXISTS (SELECT 1 FROM outbox WHERE (xid, id) > (${cursor.xid}::bigint, ${cursor.id}::bigint)) AS written`,
  );
  return row!.written;
}

/** What a wake-up says: `remote` when another server instance committed the events (src/db/redis.ts relays it). */
export interface OutboxWrite {
  remote: boolean;
}

const writtenListeners = new WeakMap<object, Set<(write: OutboxWrite) => void>>();

/**
 * Calls `listener` when this process has committed events through `db` (the dispatcher's and the
 * subscriptions' wake-up), and, with REDIS_URL, when another instance has (`remote`).
 */
export function onOutboxWritten(db: object, listener: (write: OutboxWrite) => void): () => void {
  let listeners = writtenListeners.get(db);
  if (!listeners) writtenListeners.set(db, (listeners = new Set()));
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/**
 * Says that a transaction that appended events through `db` has committed (the write path, after its
 * commit), or with `remote`, that another instance's has (its message through Redis).
 */
export function outboxWritten(db: object, { remote = false }: { remote?: boolean } = {}): void {
  for (const listener of writtenListeners.get(db) ?? []) listener({ remote });
}

/** The wake-up channel (docs/instances.md): a commit's message is the id of the instance that sent it. */
const OUTBOX_CHANNEL = "outbox-written";

/**
 * Tells the other instances when this one commits events, and wakes this one's outbox readers (the
 * dispatcher, the subscriptions) when another did: each local `outboxWritten(db)` publishes this instance's
 * id, and a message from another instance calls `outboxWritten(db, { remote: true })`, which its listeners
 * take like a local commit and which is not published again. Polling (OUTBOX_POLL_MS) stays as the net
 * under a lost message. Resolves once subscribed; returns what stops it.
 */
export async function relayOutboxWrites(redis: SharedRedis, db: object, warn: (line: string, error?: unknown) => void): Promise<() => void> {
  const instance = crypto.randomUUID();
  let stopped = false;
  await redis.subscribe(OUTBOX_CHANNEL, (sender) => {
    if (!stopped && sender !== instance) outboxWritten(db, { remote: true });
  });
  const stopPublishing = onOutboxWritten(db, ({ remote }) => {
    if (remote || stopped) return;
    redis.publish(OUTBOX_CHANNEL, instance).catch((error: unknown) => warn("could not tell other instances of written events (Redis); they find them by polling", error));
  });
  return () => {
    stopped = true;
    stopPublishing();
  };
}

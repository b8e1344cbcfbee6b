import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { backgroundSqlOf, type SqlClient } from "../db/sql.js";
import { readCommittedEvents, serialReads, writtenAfter, type OutboxCursor, type StoredEvent } from "../common/outbox.js";

/**
 * Delivery from the outbox, at least once (docs/events.md, "Delivery").
 *
 * Each consumer (plugin listeners, subscriptions, webhooks, an area's projection) has a durable cursor, its
 * row in `outbox_consumers`. A drain holds the consumer (a transaction-level advisory lock, tried, not waited
 * for) — so with N server instances on one database each batch is handled by one instance, and the others
 * pass — reads the events committed
 * after the cursor in the outbox's commit-safe order (`readCommittedEvents`: an event whose lower id
 * commits late is still ahead of the cursor, never skipped), hands them to the consumer, and moves the
 * cursor, all in ONE transaction:
 * - what the consumer writes through the transaction commits with the cursor's advance, so a projection
 *   written in the database is made exactly once;
 * - a consumer that throws rolls the batch back: nothing of it is kept, the cursor stays, and the same
 *   events come again on the next drain (counted in `failures`). Effects outside the database (a webhook's
 *   request) may therefore happen twice, and carry the event id for the receiver to tell (at least once);
 * - a crash or restart resumes from the stored cursor.
 * Order is the outbox's: per record, commit order.
 */
export interface OutboxConsumer {
  /** The cursor's name: the consumer's identity across restarts and instances. */
  name: string;
  /**
   * Handles a batch, in order, inside the drain's transaction (`tx`: use it for every statement; on PGlite
   * another connection would wait for this one). `db` is the database the batch is from (for the kit's model
   * metadata, `readableBy`'s); no statement may go through it.
   */
  handle(events: StoredEvent[], tx: SqlClient, db: PrismaClient): Promise<void>;
  /**
   * Called once a batch it handled has committed, with the database it went to: for work that must see what
   * `handle` wrote (the webhooks' sender, woken to send what the batch queued). It must not throw.
   */
  committed?(db: PrismaClient): void;
  /**
   * Work the consumer left for later (what an event set off that is too large for one transaction: the
   * activity entries of a thread's 10^5 replies), taken in bounded steps: one step per drain, after the
   * batch (or alone when no event waits), in the drain's transaction. Answers whether it did something (then
   * `committed` is called) and whether more is left (then the drain is `pending`: the dispatcher comes back soon).
   */
  backlog?(tx: SqlClient, db: PrismaClient): Promise<{ worked: boolean; more: boolean }>;
}

const registered = new Map<string, OutboxConsumer>();

/**
 * Registers a consumer every server delivers events to (an area's or plugin's module calls it when loaded,
 * as areas register their GraphQL types); its name is its cursor's, so it must not change.
 */
export function registerOutboxConsumer(consumer: OutboxConsumer): OutboxConsumer {
  if (registered.has(consumer.name)) throw new Error(`outbox consumer ${consumer.name} is registered twice`);
  registered.set(consumer.name, consumer);
  return consumer;
}

/** Every registered consumer, in registration order. */
export const outboxConsumers = (): OutboxConsumer[] => [...registered.values()];

export interface DrainResult {
  /** Events handed to the consumer and committed with the cursor. */
  delivered: number;
  /** Another instance held the consumer's cursor: nothing was done here. */
  busy: boolean;
  /**
   * Events were written after the cursor whose transactions some older one still holds back (a transaction
   * in flight, perhaps in another database of the server): readable in a moment, so drain again soon.
   */
  pending: boolean;
  /** The consumer's backlog did something (`OutboxConsumer.backlog`), and has more left. */
  worked?: boolean;
  backlogLeft?: boolean;
}

/** Events per batch (per transaction). */
export const DRAIN_BATCH = 100;

/** The consumers whose cursor row this process has made sure of, per database. */
const cursorsMade = new WeakMap<PrismaClient, Set<string>>();

/**
 * How long after a drain began a write's wake-up waits before the next: under a stream of writes, their
 * events go out in batches a few milliseconds apart instead of one drain (its transaction, its cursor's
 * update) per write, which cost every create a share of the server's CPU.
 */
const WAKE_COALESCE_MS = 25;

/**
 * One batch for one consumer, in one transaction (see above). Answers how many events it delivered (0:
 * none was waiting, or another instance holds the consumer); throws what the consumer threw, after the
 * rollback and the failure's count.
 */
export async function drainOnce(db: PrismaClient, consumer: OutboxConsumer, batch = DRAIN_BATCH): Promise<DrainResult> {
  const sql = backgroundSqlOf(db);
  const known = cursorsMade.get(db) ?? new Set<string>();
  if (!known.has(consumer.name)) {
    await sql.query(Prisma.sql`INSERT INTO outbox_consumers (name) VALUES (${consumer.name}) ON CONFLICT (name) DO NOTHING`);
    cursorsMade.set(db, known.add(consumer.name));
  }
  try {
    const result = await sql.transaction(async (tx): Promise<DrainResult> => {
      // The consumer is held by an advisory lock, not a row lock: a row lock would give the drain a
      // transaction id from its first statement, and hold every reader's horizon (readCommittedEvents, on
      // every database of the server) back while the consumer works.
      const [{ locked }] = (await tx.query<{ locked: boolean }>(
        Prisma.sql`SELECT pg_try_advisory_xact_lock(hashtext('hubgraph outbox consumer'), hashtext(${consumer.name})) AS locked`,
      )) as [{ locked: boolean }];
      if (!locked) return { delivered: 0, busy: true, pending: false };
      // The cursor is read by a statement of its own, after the lock is held: its snapshot then includes the
      // commit of the drain that held the consumer before. Read in the locking statement, it came from that
      // statement's snapshot, taken before the lock was won, and a drain that won it just as another
      // committed handed that one's batch again (a test races three drains).
      const [held] = await tx.query<{ xid: string; eventId: string }>(
        Prisma.sql`SELECT xid::text AS xid, event_id::text AS "eventId" FROM outbox_consumers WHERE name = ${consumer.name}`,
      );
      if (!held) throw new Error(`outbox consumer ${consumer.name} has no cursor row`);
      const cursor: OutboxCursor = { xid: held.xid, id: held.eventId };
      const { events, cursor: next } = await readCommittedEvents(tx, cursor, batch);
      if (events.length) await consumer.handle(events, tx, db);
      const left = consumer.backlog ? await consumer.backlog(tx, db) : { worked: false, more: false };
      if (!events.length) return { delivered: 0, busy: false, pending: left.more || (await writtenAfter(tx, cursor)), worked: left.worked, backlogLeft: left.more };
      await tx.query(Prisma.sql`UPDATE outbox_consumers SET xid = ${next.xid}::bigint, event_id = ${next.id}::bigint, delivered = delivered + ${events.length},
                                       updated_at = now() AT TIME ZONE 'UTC' WHERE name = ${consumer.name}`);
      return { delivered: events.length, busy: false, pending: left.more || (events.length < batch && (await writtenAfter(tx, next))), worked: left.worked, backlogLeft: left.more };
    });
    if (result.delivered || result.worked) consumer.committed?.(db);
    return result;
  } catch (error) {
    await sql.query(Prisma.sql`UPDATE outbox_consumers SET failures = failures + 1, updated_at = now() AT TIME ZONE 'UTC' WHERE name = ${consumer.name}`).catch(() => {});
    throw error;
  }
}

/** Drains until the consumer is caught up (or another instance holds it). Answers how many events it delivered, and whether more are pending. */
export async function drainAll(db: PrismaClient, consumer: OutboxConsumer, batch = DRAIN_BATCH): Promise<{ delivered: number; pending: boolean; worked: number }> {
  let total = 0;
  let worked = 0;
  const started = Date.now();
  for (;;) {
    const result = await drainOnce(db, consumer, batch);
    total += result.delivered;
    if (result.worked) worked += 1;
    if (result.busy) return { delivered: total, pending: result.pending, worked };
    if (result.delivered === batch) continue;
    // The consumer's backlog goes on step after step (each its own transaction) for up to BACKLOG_BUDGET_MS
    // a drain, then the other consumers get their turn and the drain is pending (the dispatcher comes back).
    if (result.worked && result.backlogLeft && Date.now() - started < BACKLOG_BUDGET_MS) continue;
    return { delivered: total, pending: result.pending, worked };
  }
}

/** How long one drain of a consumer goes on with its backlog's steps before the others' turn. */
const BACKLOG_BUDGET_MS = 1_000;

/**
 * Deletes events every consumer has taken (at or before every cursor, in reading order) that are older
 * than `retentionHours`: an event no consumer has yet stays, however old. With no consumer registered in
 * the table, nothing is deleted (a consumer added later starts from the beginning). Answers how many, and
 * the consumers it no longer waits for.
 *
 * A consumer that has left an event untaken, and its cursor row unchanged, for longer than the retention (and
 * at least ABANDONED_AFTER_HOURS) is taken as removed from the code (renamed, or its module gone), and no
 * longer holds events back: a consumer that runs takes an event within moments, or counts a failure on its
 * row (a failing one is retried at least every minute), so it never sits that long behind one. An idle
 * consumer (no event behind it) is never abandoned. Its row stays, named in the answer (the purge timer
 * logs it), until someone deletes it.
 */
const ABANDONED_AFTER_HOURS = 1;

export async function purgeDeliveredEvents(db: PrismaClient, retentionHours: number): Promise<{ deleted: number; abandoned: string[] }> {
  const [row] = await backgroundSqlOf(db).query<{ deleted: number; abandoned: string[] }>(Prisma.sql`
    WITH horizon AS (SELECT (now() AT TIME ZONE 'UTC') - make_interval(hours => ${retentionHours}) AS at,
                            (now() AT TIME ZONE 'UTC') - make_interval(hours => ${Math.max(retentionHours, ABANDONED_AFTER_HOURS)}) AS abandoned),
         consumers AS (SELECT c.name, c.xid, c.event_id,
                              c.updated_at < horizon.abandoned
                              AND (SELECT o.occurred_at FROM outbox o WHERE (o.xid, o.id) > (c.xid, c.event_id) ORDER BY o.xid, o.id LIMIT 1) < horizon.abandoned
                              AS abandoned
                         FROM outbox_consumers c, horizon),
         slowest AS (SELECT xid, event_id FROM consumers WHERE abandoned IS NOT TRUE ORDER BY xid, event_id LIMIT 1),
         gone AS (DELETE FROM outbox o USING slowest, horizon
                   WHERE (o.xid, o.id) <= (slowest.xid, slowest.event_id) AND o.occurred_at < horizon.at
                   RETURNING o.xid, o.id),
         -- The greatest event deleted so far, for subscribers resuming with a Last-Event-ID (outbox_purged).
         mark AS (INSERT INTO outbox_purged (id, xid, event_id)
                  SELECT 1, xid, id FROM gone ORDER BY xid DESC, id DESC LIMIT 1
                  ON CONFLICT (id) DO UPDATE SET xid = EXCLUDED.xid, event_id = EXCLUDED.event_id
                   WHERE (outbox_purged.xid, outbox_purged.event_id) < (EXCLUDED.xid, EXCLUDED.event_id))
    SELECT (SELECT count(*)::int FROM gone) AS deleted, ARRAY(SELECT name FROM consumers WHERE abandoned IS TRUE ORDER BY name) AS abandoned`);
  return row!;
}

export interface Dispatcher {
  /** Events were written here: drain soon (the write path calls it after its commit). */
  wake(): void;
  /** Drains every consumer until caught up, now (tests, shutdown); answers how many events went out. */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Keeps every consumer caught up: drains them when this process writes an event (`wake`, called by the
 * write path once its transaction has committed) and every `pollMs` otherwise (events other instances
 * wrote; a consumer another instance held). A consumer that fails is retried with a doubling delay (up to
 * a minute) and logged; the others go on. One drain at a time per consumer in this process; across
 * processes the consumer's advisory lock decides.
 */
export function startDispatcher(options: {
  db: PrismaClient;
  consumers: OutboxConsumer[];
  pollMs: number;
  log: (line: string, error?: unknown) => void;
  /** Counted per consumer (src/observability/metrics.ts). */
  counted?: { delivered(consumer: string, count: number): void; failed(consumer: string): void };
}): Dispatcher {
  const { db, consumers, pollMs, log, counted } = options;
  const retryAt = new Map<string, { at: number; delay: number }>();
  let timer: NodeJS.Timeout | undefined;
  // One drain of every consumer at a time; again soon while events wait behind a transaction in flight.
  const drains = serialReads(
    async () => {
      let total = 0;
      let pending = false;
      for (const consumer of consumers) {
        const retry = retryAt.get(consumer.name);
        if (retry && retry.at > Date.now()) continue;
        try {
          const drained = await drainAll(db, consumer);
          retryAt.delete(consumer.name);
          if (drained.delivered) counted?.delivered(consumer.name, drained.delivered);
          // Backlog steps count as progress too: flush() goes on until nothing is left to do.
          total += drained.delivered + drained.worked;
          pending ||= drained.pending;
        } catch (error) {
          const delay = Math.min(60_000, (retry?.delay ?? 500) * 2);
          retryAt.set(consumer.name, { at: Date.now() + delay, delay });
          counted?.failed(consumer.name);
          log(`outbox consumer ${consumer.name} failed; its batch is retried in ${delay} ms`, error);
        }
      }
      return { value: total, pending };
    },
    pollMs,
    (error) => log("draining the outbox failed", error),
  );
  const run = async () => (await drains.run()) ?? 0;
  let stopped = false;
  const schedule = () => {
    if (stopped || pollMs <= 0) return;
    timer = setTimeout(() => void run().finally(schedule), pollMs);
    timer.unref();
  };
  if (consumers.length) schedule();

  let lastStarted = 0;
  let waking: NodeJS.Timeout | undefined;
  return {
    wake() {
      if (stopped || !consumers.length || waking) return;
      const wait = Math.max(0, lastStarted + WAKE_COALESCE_MS - Date.now());
      waking = setTimeout(() => {
        waking = undefined;
        lastStarted = Date.now();
        // Not awaited: while a drain runs (a long one, under a stream of writes) each wake-up would add a
        // reaction to its promise, and each reaction keeps the waking request's async context (its logger,
        // its request and response) alive until the drain ends: 40 requests a second, seen in a heap snapshot.
        void drains.run();
      }, wait);
      waking.unref();
    },
    async flush() {
      // A drain already running may have begun before what the caller wrote: wait for it, then drain anew
      // until one delivers nothing (consumers in their retry delay are tried now too).
      await drains.current();
      retryAt.clear();
      let total = 0;
      for (;;) {
        const delivered = await run();
        total += delivered;
        if (!delivered) return total;
      }
    },
    async stop() {
      stopped = true;
      drains.stop();
      clearTimeout(timer);
      clearTimeout(waking);
      await drains.current();
    },
  };
}

import { GraphQLError } from "graphql";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import type { Viewer } from "../common/context.js";
import { modelInfo, table, column, visibleSql } from "../common/records.js";
import { writtenRecordsOf } from "../common/write-path.js";
import { onOutboxWritten, PENDING_RETRY_MS, readCommittedEvents, writtenAfter, type OutboxCursor, type StoredEvent } from "../common/outbox.js";

/**
 * GraphQL subscriptions to domain events (docs/events.md, "Subscriptions").
 *
 * Every server reads the outbox itself for its subscribers (`SubscriptionHub.catchUp`, `tailOutbox`: an
 * in-memory cursor in the outbox's commit-safe order, woken by this process's writes and polling for other
 * instances'; nothing is read while nobody subscribes), so the outbox is the one bus between instances and
 * a subscriber on any of them sees every event committed after it subscribed. Each batch is
 * checked against what each subscriber may read at that moment — in ONE statement per batch for all of
 * them, not a query per subscriber (`readableBy`) — then pushed to each subscription's queue:
 * - an event about a record is delivered to whoever may read that record now (the area's `visibleSql`); an
 *   event about a record that is gone (deleted) to whoever could read what it says it was (public and
 *   published: everyone; registered: signed-in callers), its actor and administrators;
 * - an event for the `managers` audience (membership requests, invitations) only to the record's managers,
 *   the person it is about (`subjectId`) and administrators;
 * - an anonymous record's actor is shown to nobody but the actor and administrators.
 * A subscription whose reader falls behind by more than `MAX_QUEUED` events is closed with an error
 * (SUBSCRIPTION_LAGGING), so a stalled client cannot grow the server's memory.
 */

/** Events a subscription may have waiting before it is closed as lagging. */
export const MAX_QUEUED = 1000;
/** Subscriptions one signed-in user may hold on one server, and all anonymous callers together. */
export const MAX_SUBSCRIPTIONS_PER_USER = 20;
export const MAX_ANONYMOUS_SUBSCRIPTIONS = 500;

/** An event as a subscriber receives it: its actor hidden when the record is anonymous and the subscriber is neither the actor nor an administrator. */
export type DeliveredEvent = StoredEvent & { cursor: string };

interface Subscriber {
  viewer: Viewer;
  /** Where the outbox ended when it subscribed: it gets the events after. */
  start: OutboxCursor;
  matches(event: StoredEvent): boolean;
  queue: DeliveredEvent[];
  wake?: () => void;
  failure?: GraphQLError;
  closed: boolean;
}

export class SubscriptionHub {
  private readonly subscribers = new Set<Subscriber>();
  /** How far this server has read the outbox for its subscribers (null: nobody has subscribed yet). */
  private cursor: OutboxCursor | null = null;
  private reading: Promise<void> | null = null;
  private readAgain = false;
  /** A look again soon, while events are written but not yet readable (a transaction in flight holds them back). */
  private pendingRead: NodeJS.Timeout | undefined;

  constructor(private readonly db: PrismaClient) {}

  /** How many subscriptions are open (metrics, tests). */
  get size(): number {
    return this.subscribers.size;
  }

  /** A subscription's stream of events: those committed from now on that `matches` keeps and the viewer may read. */
  async subscribe(viewer: Viewer, matches: (event: StoredEvent) => boolean): Promise<AsyncIterableIterator<DeliveredEvent>> {
    const open = [...this.subscribers].filter((other) => (viewer.user ? other.viewer.user?.id === viewer.user.id : !other.viewer.user)).length;
    const cap = viewer.user ? MAX_SUBSCRIPTIONS_PER_USER : MAX_ANONYMOUS_SUBSCRIPTIONS;
    if (open >= cap) {
      throw new GraphQLError(`At most ${cap} subscriptions at a time${viewer.user ? " per user" : " for anonymous callers"}: close one first.`, {
        extensions: { code: "TOO_MANY_SUBSCRIPTIONS", http: { status: 429 } },
      });
    }
    const start = await endOfOutbox(this.db);
    const subscriber: Subscriber = { viewer, start, matches, queue: [], closed: false };
    // The first subscriber since nobody listened: read from here (nothing was read while nobody listened).
    if (!this.subscribers.size && (!this.cursor || isAfter(start, this.cursor))) this.cursor = start;
    this.subscribers.add(subscriber);
    const close = () => {
      subscriber.closed = true;
      this.subscribers.delete(subscriber);
      subscriber.wake?.();
    };
    const iterator: AsyncIterableIterator<DeliveredEvent> = {
      next: async () => {
        for (;;) {
          if (subscriber.failure) {
            const failure = subscriber.failure;
            close();
            throw failure;
          }
          const event = subscriber.queue.shift();
          if (event) return { value: event, done: false };
          if (subscriber.closed) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (subscriber.wake = resolve));
          subscriber.wake = undefined;
        }
      },
      return: async () => {
        close();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /** Hands a batch of committed events to every subscription that wants them and may read them. */
  async publish(events: StoredEvent[]): Promise<void> {
    const wanted = [...this.subscribers]
      .map((subscriber) => ({ subscriber, events: events.filter((event) => isAfter(event, subscriber.start) && subscriber.matches(event)) }))
      .filter((entry) => entry.events.length);
    if (!wanted.length) return;
    const viewers = distinctViewers(wanted.map((entry) => entry.subscriber.viewer));
    const readable = await readableBy(this.db, viewers, [...new Set(wanted.flatMap((entry) => entry.events))]);
    for (const { subscriber, events: candidates } of wanted) {
      if (subscriber.closed) continue;
      const allowed = readable.get(viewerKey(subscriber.viewer))!;
      for (const event of candidates) {
        if (!allowed.has(event.id)) continue;
        if (subscriber.queue.length >= MAX_QUEUED) {
          subscriber.failure = new GraphQLError(`This subscription fell more than ${MAX_QUEUED} events behind and was closed: subscribe again.`, {
            extensions: { code: "SUBSCRIPTION_LAGGING" },
          });
          break;
        }
        subscriber.queue.push(shownTo(subscriber.viewer, event));
      }
      subscriber.wake?.();
    }
  }

  /**
   * Reads the events committed since the last read and publishes them; nothing while nobody subscribes.
   * One read at a time; asked again meanwhile, it reads once more after.
   */
  catchUp(log: (line: string, error?: unknown) => void): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readNew()
      .then((pending) => {
        // Written but not yet readable: look again in a moment, not at the next poll (a wake-up from
        // another instance can come before this server's snapshot may read what it committed).
        if (!pending || this.pendingRead) return;
        this.pendingRead = setTimeout(() => {
          this.pendingRead = undefined;
          this.catchUp(log);
        }, PENDING_RETRY_MS);
        this.pendingRead.unref();
      })
      .catch((error) => log("reading the outbox for subscriptions failed", error))
      .finally(() => {
        this.reading = null;
        if (this.readAgain) {
          this.readAgain = false;
          this.catchUp(log);
        }
      });
  }

  /** Reads what is readable; answers whether more is written after it, not readable yet. */
  private async readNew(): Promise<boolean> {
    const sql = sqlClientOf(this.db);
    while (this.subscribers.size && this.cursor) {
      const page = await readCommittedEvents(sql, this.cursor, 200);
      if (page.events.length) await this.publish(page.events);
      this.cursor = page.cursor;
      if (page.events.length < 200) return Boolean(this.subscribers.size) && writtenAfter(sql, this.cursor);
    }
    return false;
  }

  /** Ends every subscription (server shutdown). */
  closeAll(): void {
    clearTimeout(this.pendingRead);
    for (const subscriber of [...this.subscribers]) {
      subscriber.closed = true;
      this.subscribers.delete(subscriber);
      subscriber.wake?.();
    }
  }
}

const viewerKey = (viewer: Viewer) => (viewer.user ? `${viewer.user.id}${viewer.user.isAdmin ? "a" : ""}` : "anonymous");

function distinctViewers(viewers: Viewer[]): Viewer[] {
  const byKey = new Map<string, Viewer>();
  for (const viewer of viewers) byKey.set(viewerKey(viewer), viewer);
  return [...byKey.values()];
}

/** The event as `viewer` may see it: an anonymous record's actor only for the actor and administrators. */
function shownTo(viewer: Viewer, event: StoredEvent): DeliveredEvent {
  const cursor = `${event.xid}:${event.id}`;
  if (!event.anonymous || viewer.user?.isAdmin || (viewer.user && viewer.user.id === event.actorId)) return { ...event, cursor };
  return { ...event, actorId: null, cursor };
}

/**
 * Per viewer (by `viewerKey`), the ids of the events they may read now: ONE statement for the whole batch
 * and every viewer — per area and viewer, the batch's records the viewer may read (the area's `visibleSql`,
 * so hidden groups, levels, publishing and creators count as for reads) and, for `managers` events, the
 * records they manage — and the rest (records gone, the person an event is about) from the events themselves.
 */
export async function readableBy(db: PrismaClient, viewers: Viewer[], events: StoredEvent[]): Promise<Map<string, Set<string>>> {
  const parts: Prisma.Sql[] = [];
  const areas = [...new Set(events.map((event) => event.area))];
  viewers.forEach((viewer, index) => {
    if (viewer.user?.isAdmin) return;
    for (const area of areas) {
      const written = writtenRecordsOf(area);
      if (!written) continue;
      const info = modelInfo(db, written.records.model);
      const ids = [...new Set(events.filter((event) => event.area === area).map((event) => event.recordId))];
      const idColumn = column(info, "t", "id");
      parts.push(Prisma.sql`SELECT ${index}::int AS viewer, ${area}::text AS area, ${idColumn} AS record, 'read' AS relation FROM ${table(info, "t")}
                            WHERE ${idColumn} = ANY(${ids}::int[]) AND ${visibleSql(db, written.records, viewer)}`);
      if (viewer.user && written.records.managedBy) {
        parts.push(Prisma.sql`SELECT ${index}::int, ${area}::text, ${idColumn}, 'manage' FROM ${table(info, "t")}
                              WHERE ${idColumn} = ANY(${ids}::int[]) AND ${idColumn} IN (${written.records.managedBy(viewer.user.id)})`);
      }
      parts.push(Prisma.sql`SELECT ${index}::int, ${area}::text, ${idColumn}, 'exists' FROM ${table(info, "t")} WHERE ${idColumn} = ANY(${ids}::int[])`);
    }
  });
  const found = parts.length
    ? await sqlClientOf(db).query<{ viewer: number; area: string; record: number; relation: "read" | "manage" | "exists" }>(Prisma.join(parts, " UNION ALL "))
    : [];
  const relations = new Set(found.map((row) => `${row.viewer}:${row.area}:${row.record}:${row.relation}`));
  const result = new Map<string, Set<string>>();
  viewers.forEach((viewer, index) => {
    const allowed = new Set<string>();
    for (const event of events) {
      const has = (relation: string) => relations.has(`${index}:${event.area}:${event.recordId}:${relation}`);
      const user = viewer.user;
      const mayRead = (() => {
        if (user?.isAdmin) return true;
        if (user && (user.id === event.subjectId || (event.audience === "readers" && user.id === event.actorId && !has("exists")))) return true;
        if (event.audience === "managers") return has("manage");
        if (has("exists")) return has("read");
        // The record is gone: what the event says it was.
        return event.published && (event.visibility === "public" || (event.visibility === "registered" && user !== null));
      })();
      if (mayRead) allowed.add(event.id);
    }
    result.set(viewerKey(viewer), allowed);
  });
  return result;
}

/** Whether `event` (or a cursor) comes after `cursor` in the outbox's reading order. */
function isAfter(event: { xid: string; id: string }, cursor: OutboxCursor): boolean {
  const [xid, after] = [BigInt(event.xid), BigInt(cursor.xid)];
  return xid > after || (xid === after && BigInt(event.id) > BigInt(cursor.id));
}

/** The last readable event's place (the outbox's end as a reader sees it now). */
async function endOfOutbox(db: PrismaClient): Promise<OutboxCursor> {
  const [last] = await sqlClientOf(db).query<{ xid: string; id: string }>(
    Prisma.sql`SELECT xid::text AS xid, id::text AS id FROM outbox WHERE xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint ORDER BY xid DESC, id DESC LIMIT 1`,
  );
  return last ? { xid: last.xid, id: last.id } : { xid: "0", id: "0" };
}

/**
 * Keeps this server's subscribers fed: the hub reads the outbox when this process commits events (and
 * again 20 ms later, for events a transaction in flight held back) and every `pollMs` for other instances'.
 * While nobody subscribes, nothing is read.
 */
export function tailOutbox(db: PrismaClient, hub: SubscriptionHub, options: { pollMs: number; log: (line: string, error?: unknown) => void }): { stop(): void } {
  let soon: NodeJS.Timeout | undefined;
  const read = () => hub.size && hub.catchUp(options.log);
  const stopWaking = onOutboxWritten(db, () => {
    if (!hub.size) return;
    read();
    clearTimeout(soon);
    soon = setTimeout(read, 20);
    soon.unref();
  });
  const poll = options.pollMs > 0 ? setInterval(read, options.pollMs) : undefined;
  poll?.unref();
  return {
    stop() {
      stopWaking();
      clearInterval(poll);
      clearTimeout(soon);
      hub.closeAll();
    },
  };
}

const hubs = new WeakMap<PrismaClient, SubscriptionHub>();

/** The subscription hub of the app whose database is `db` (the GraphQL resolvers find it from their context). */
export function hubOf(db: PrismaClient): SubscriptionHub {
  let hub = hubs.get(db);
  if (!hub) hubs.set(db, (hub = new SubscriptionHub(db)));
  return hub;
}

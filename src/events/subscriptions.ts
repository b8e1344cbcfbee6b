import { ApiError } from "../common/errors.js";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { backgroundSqlOf, type SqlClient } from "../db/sql.js";
import { authorShownTo, type Viewer } from "../common/context.js";
import { managesSql, visibleSql, moderatedScopeSql, type RuleViewer } from "../common/visibility.js";
import { modelInfo, table, column } from "../common/model.js";
import { privateToSql } from "../common/records.js";
import { belongsToRecordScopeSql } from "../common/scope-kinds.js";
import { fold, goneKnows, policyOf, renderSql } from "../common/policy.js";
import { hidesAuthorSql, writtenRecordsOf } from "../common/written-records.js";
import { onOutboxWritten, publicEvent, readCommittedEvents, type PublicEvent, serialReads, writtenAfter, type OutboxCursor, type StoredEvent, RUNNING_HERE_FROM } from "../common/outbox.js";

/**
 * GraphQL subscriptions to domain events (docs/events.md, "Subscriptions").
 *
 * Every server reads the outbox itself for its subscribers (`SubscriptionHub.readNew`, run by `tailOutbox`: an
 * in-memory cursor in the outbox's commit-safe order, woken by this process's writes and polling for other
 * instances'; nothing is read while nobody subscribes), so the outbox is the one bus between instances and
 * a subscriber on any of them sees every event committed after it subscribed. Each batch is
 * checked against what each subscriber may read at that moment — in two statements per batch however many
 * subscribe, not a query per subscriber (`readableBy`) — then pushed to each subscription's queue:
 * - an event about a record is delivered to whoever may read that record now (the area's `visibleSql`); an
 *   event about a record that is gone (deleted) to whoever could read what it says it was (public and
 *   published: everyone; registered: signed-in callers; private: its scope's members), its author (D13: the
 *   event records them, never delivers them), its actor and administrators;
 * - an event for the `listers` audience (who is in a group) to whoever finds the record in lists (its list
 *   rule: not a hidden group's invitee, who reads the group but not its members list);
 * - an event for the `managers` audience (membership requests, invitations) only to the record's managers,
 *   the person it is about (`subjectId`) and administrators;
 * - an anonymous record's actor is shown to nobody but the actor and administrators.
 * A subscription whose reader falls behind by more than `MAX_QUEUED` events is closed with an error
 * (SUBSCRIPTION_LAGGING), so a stalled client cannot grow the server's memory.
 */

/** Events a subscription may have waiting before it is closed as lagging. */
export const MAX_QUEUED = 1000;
/** Events a Last-Event-ID may lie behind the outbox's end (read through, of any type) before the resume is refused as lagging. */
export const MAX_BACKFILL_SCANNED = 10 * 1000;
/** Subscriptions one signed-in user may hold on one server, and all anonymous callers together. */
export const MAX_SUBSCRIPTIONS_PER_USER = 20;
export const MAX_ANONYMOUS_SUBSCRIPTIONS = 2000;

/**
 * An event as a subscriber or webhook receives it: its actor hidden when the record is anonymous and the
 * subscriber is neither the actor nor an administrator; without the server's own reading of who is told
 * (`authorId`, `readerIds`); with its cursor.
 */
export type DeliveredEvent = PublicEvent & { cursor: string };

/**
 * The last thing a failed subscription yields (lagging): its field resolves by throwing `error`, so the
 * client gets it as one GraphQL error event, then the stream completes (not a cut connection).
 */
export interface SubscriptionFailure {
  failed: ApiError;
}
export const isSubscriptionFailure = (value: unknown): value is SubscriptionFailure => typeof value === "object" && value !== null && "failed" in value;

interface Subscriber {
  viewer: Viewer;
  /** The caller's address (anonymous subscribers are capped per address). */
  address?: string;
  /** Where the outbox ended when it subscribed: it gets the events after (null: not known yet). */
  start: OutboxCursor | null;
  /** The last event it was offered: the hub may read a stretch again (a rewind), never offer one twice. */
  offeredUpTo: OutboxCursor | null;
  /** Events published while its start was not known yet, kept until it is (those after it are then offered). */
  early: StoredEvent[];
  matches(event: StoredEvent): boolean;
  queue: DeliveredEvent[];
  wake?: () => void;
  failure?: ApiError;
  closed: boolean;
}

export class SubscriptionHub {
  private readonly subscribers = new Set<Subscriber>();
  /** How far this server has read the outbox for its subscribers (null: nobody has subscribed yet). */
  private cursor: OutboxCursor | null = null;

  constructor(private readonly db: PrismaClient) {}

  /**
   * How many subscriptions are open (metrics, tests): those that have their place in the outbox, so an event
   * committed after this count went up reaches them. One still reading the outbox's end is not counted yet.
   */
  get size(): number {
    let listening = 0;
    for (const subscriber of this.subscribers) if (subscriber.start && !subscriber.closed) listening++;
    return listening;
  }

  /** Whether anyone has subscribed, even one still opening (whose early events a read would keep). */
  get hasSubscribers(): boolean {
    return this.subscribers.size > 0;
  }

  /**
   * A subscription's stream of events: those committed from now on that `matches` keeps and the viewer may
   * read; with `after` (a reconnecting client's Last-Event-ID), first those committed after it that are still
   * in the outbox, so a client that reconnects misses nothing.
   */
  async subscribe(
    viewer: Viewer,
    matches: (event: StoredEvent) => boolean,
    after?: OutboxCursor,
    /** Where an anonymous subscriber calls from, and how many subscriptions one address may hold (0: no cap), so one client cannot take the anonymous 2,000. */
    from?: { address: string; cap: number },
  ): Promise<AsyncIterableIterator<DeliveredEvent | SubscriptionFailure>> {
    const address = from?.address;
    const others = [...this.subscribers];
    const refuse = (cap: number, whose: string) => {
      throw subscriptionError(429, "TOO_MANY_SUBSCRIPTIONS", `At most ${cap} subscriptions at a time ${whose}: close one first.`);
    };
    if (viewer.user) {
      if (others.filter((other) => other.viewer.user?.id === viewer.user!.id).length >= MAX_SUBSCRIPTIONS_PER_USER) refuse(MAX_SUBSCRIPTIONS_PER_USER, "per user");
    } else {
      const anonymous = others.filter((other) => !other.viewer.user);
      if (anonymous.length >= MAX_ANONYMOUS_SUBSCRIPTIONS) refuse(MAX_ANONYMOUS_SUBSCRIPTIONS, "for anonymous callers");
      if (from && from.cap > 0 && anonymous.filter((other) => other.address === from.address).length >= from.cap) {
        refuse(from.cap, "for anonymous callers from one address");
      }
    }
    // Registered first, then the outbox's end taken: events published meanwhile are kept (`early`) and those
    // after the end offered once it is known, so nothing falls between the end and live delivery.
    const subscriber: Subscriber = { viewer, address, start: null, offeredUpTo: null, early: [], matches, queue: [], closed: false };
    const alone = !this.subscribers.size;
    this.subscribers.add(subscriber);
    const close = () => this.drop(subscriber);
    try {
      const start = await endOfOutbox(backgroundSqlOf(this.db));
      subscriber.start = start;
      // Nobody listened (nothing was read meanwhile): read from here. Others listen: read from here too if
      // the hub is past it (a rewind: the others are never offered an event twice, `offeredUpTo`).
      if (alone || !this.cursor || isAfter(this.cursor, start)) this.cursor = start;
      if (after) await this.backfill(subscriber, after, start);
      const early = subscriber.early.splice(0);
      await this.offer([subscriber], early);
    } catch (error) {
      close();
      throw error;
    }
    const iterator: AsyncIterableIterator<DeliveredEvent | SubscriptionFailure> = {
      next: async () => {
        for (;;) {
          if (subscriber.failure) {
            // The error, then the end (the subscription is already out of the hub, its queue dropped).
            const failed = subscriber.failure;
            subscriber.failure = undefined;
            return { value: { failed }, done: false };
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
    const known: Subscriber[] = [];
    for (const subscriber of this.subscribers) {
      if (subscriber.start) known.push(subscriber);
      else {
        subscriber.early.push(...events.filter((event) => subscriber.matches(event)));
        if (subscriber.early.length > MAX_QUEUED) this.fail(subscriber, lagging());
      }
    }
    await this.offer(known, events);
  }

  /**
   * Offers `events` to `subscribers`: each gets those after its start and after what it was offered before,
   * that it wants and may read now. When they cannot be checked (the database failing), the subscriptions
   * concerned end with an error that tells the client to resume with Last-Event-ID: none is left waiting
   * for events that would never come, and none gets an event unchecked.
   */
  private async offer(subscribers: Subscriber[], events: StoredEvent[]): Promise<void> {
    if (!events.length) return;
    const last = events.reduce((latest, event) => (isAfter(event, latest) ? { xid: event.xid, id: event.id } : latest), { xid: events[0]!.xid, id: events[0]!.id });
    const wanted = subscribers
      .filter((subscriber) => !subscriber.closed)
      .map((subscriber) => {
        const from = subscriber.offeredUpTo && isAfter(subscriber.offeredUpTo, subscriber.start!) ? subscriber.offeredUpTo : subscriber.start!;
        if (!subscriber.offeredUpTo || isAfter(last, subscriber.offeredUpTo)) subscriber.offeredUpTo = last;
        return { subscriber, events: events.filter((event) => isAfter(event, from) && subscriber.matches(event)) };
      })
      .filter((entry) => entry.events.length);
    if (!wanted.length) return;
    let readable: Map<string, Set<string>>;
    try {
      await this.recheckCredentials(wanted.map((entry) => entry.subscriber));
      readable = await readableBy(this.db, distinctViewers(wanted.map((entry) => entry.subscriber.viewer)), [...new Set(wanted.flatMap((entry) => entry.events))]);
    } catch (error) {
      for (const { subscriber } of wanted) {
        this.fail(subscriber, subscriptionError(503, "SERVICE_UNAVAILABLE", "Events could not be checked for this subscription: subscribe again with the last event's id as Last-Event-ID."));
      }
      throw error;
    }
    for (const { subscriber, events: candidates } of wanted) {
      if (subscriber.closed) continue;
      const allowed = readable.get(viewerKey(subscriber.viewer))!;
      for (const event of candidates) {
        if (!allowed.has(event.id)) continue;
        if (subscriber.queue.length >= MAX_QUEUED) {
          this.fail(subscriber, lagging());
          break;
        }
        subscriber.queue.push(shownTo(subscriber.viewer, event));
      }
      subscriber.wake?.();
    }
  }

  /**
   * What a signed-in subscriber is, read again before each batch it is offered, in one statement for all of
   * them: a subscription lives on the credential it was opened with, so one whose token or session has been
   * revoked or has expired, or whose account is gone, ends (401: subscribe again with a valid credential and
   * the last event's id as Last-Event-ID), and an administrator demoted meanwhile (or a user promoted) is
   * checked as what they are now, not as what they were when they subscribed.
   */
  private async recheckCredentials(subscribers: Subscriber[]): Promise<void> {
    const signedIn = subscribers.filter((subscriber) => subscriber.viewer.user && !subscriber.closed);
    if (!signedIn.length) return;
    const rows = await backgroundSqlOf(this.db).query<{ index: number; isAdmin: boolean | null; valid: boolean }>(Prisma.sql`
      SELECT v.index, u.is_admin AS "isAdmin",
             (u.id IS NOT NULL AND CASE WHEN v.token_id IS NOT NULL THEN t.id IS NOT NULL WHEN v.session_id IS NOT NULL THEN s.id IS NOT NULL ELSE true END) AS valid
        FROM unnest(${signedIn.map((_, index) => index)}::int[], ${signedIn.map((subscriber) => subscriber.viewer.user!.id)}::int[],
                    ${signedIn.map((subscriber) => subscriber.viewer.tokenId ?? null)}::int[], ${signedIn.map((subscriber) => subscriber.viewer.sessionId ?? null)}::int[])
             AS v(index, user_id, token_id, session_id)
        LEFT JOIN users u ON u.id = v.user_id
        LEFT JOIN oauth_tokens t ON t.id = v.token_id AND t.user_id = v.user_id AND t.access_token_expires_at > (now() AT TIME ZONE 'UTC')
        LEFT JOIN sessions s ON s.id = v.session_id AND s.user_id = v.user_id AND s.expires_at > (now() AT TIME ZONE 'UTC')`);
    for (const row of rows) {
      const subscriber = signedIn[row.index]!;
      const user = subscriber.viewer.user!;
      if (!row.valid) {
        this.fail(subscriber, subscriptionError(401, "UNAUTHENTICATED", "The access token or session this subscription was opened with has been revoked or has expired: subscribe again with a valid one, and the last event's id as Last-Event-ID."));
      } else if (row.isAdmin !== user.isAdmin) {
        // A new object: the viewer's user may be shared (and frozen) by the bearer cache.
        subscriber.viewer = { ...subscriber.viewer, user: { ...user, isAdmin: Boolean(row.isAdmin) } };
      }
    }
  }

  /** Takes a subscription out of the hub at once, its queue dropped; its reader gets `error`, then the end. */
  private fail(subscriber: Subscriber, error: ApiError): void {
    subscriber.failure = error;
    subscriber.queue.length = 0;
    subscriber.early.length = 0;
    this.drop(subscriber);
  }

  private drop(subscriber: Subscriber): void {
    subscriber.closed = true;
    this.subscribers.delete(subscriber);
    subscriber.wake?.();
  }

  /**
   * Queues, before anything live, the events after `after` up to `upTo` that the subscriber wants and may
   * read now. More than MAX_QUEUED of them (a client gone too long), or events after `after` purged since,
   * ends the subscription as lagging.
   */
  private async backfill(subscriber: Subscriber, after: OutboxCursor, upTo: OutboxCursor): Promise<void> {
    const sql = backgroundSqlOf(this.db);
    // Bounded before reading: a Last-Event-ID far back (or made up) must not make the server walk the outbox.
    const [{ between, gap }] = (await sql.query<{ between: number; gap: boolean }>(Prisma.sql`
      SELECT (SELECT count(*)::int FROM (SELECT 1 FROM outbox WHERE (xid, id) > (${after.xid}::bigint, ${after.id}::bigint)
                                            AND (xid, id) <= (${upTo.xid}::bigint, ${upTo.id}::bigint) LIMIT ${MAX_BACKFILL_SCANNED + 1}) AS missed) AS between,
             EXISTS (SELECT 1 FROM outbox_purged WHERE (xid, event_id) > (${after.xid}::bigint, ${after.id}::bigint)) AS gap`)) as [{ between: number; gap: boolean }];
    // The purge has deleted an event after the one named: resuming would hide that gap. (The named event's own
    // purge is no gap: a client whose last event was the newest, on a quiet site, resumes.)
    if (gap) return this.fail(subscriber, purged());
    if (!isAfter(upTo, after)) return;
    if (between > MAX_BACKFILL_SCANNED) return this.fail(subscriber, lagging("since Last-Event-ID"));
    const missed: DeliveredEvent[] = [];
    for (let cursor = after; ; ) {
      const page = await readCommittedEvents(sql, cursor, 200);
      const candidates = page.events.filter((event) => !isAfter(event, upTo) && subscriber.matches(event));
      if (candidates.length) {
        const allowed = (await readableBy(this.db, [subscriber.viewer], candidates)).get(viewerKey(subscriber.viewer))!;
        missed.push(...candidates.filter((event) => allowed.has(event.id)).map((event) => shownTo(subscriber.viewer, event)));
      }
      if (missed.length > MAX_QUEUED) return this.fail(subscriber, lagging("since Last-Event-ID"));
      if (page.events.length < 200 || page.events.some((event) => isAfter(event, upTo))) break;
      cursor = page.cursor;
    }
    subscriber.queue.unshift(...missed);
  }

  /**
   * Reads the events committed since the last read and publishes them (nothing while nobody subscribes);
   * answers whether more is written after them, not readable yet. `tailOutbox` runs it, one read at a time.
   */
  async readNew(): Promise<boolean> {
    const sql = backgroundSqlOf(this.db);
    while (this.subscribers.size && this.cursor) {
      const page = await readCommittedEvents(sql, this.cursor, 200);
      // Moved on before offering: a batch that cannot be checked ends the subscriptions it concerns (they
      // resume with Last-Event-ID) rather than stalling every subscriber behind it.
      this.cursor = page.cursor;
      if (page.events.length) await this.publish(page.events);
      if (page.events.length < 200) return Boolean(this.subscribers.size) && writtenAfter(sql, this.cursor);
    }
    return false;
  }

  /** Ends every subscription (server shutdown). */
  closeAll(): void {
    for (const subscriber of [...this.subscribers]) this.drop(subscriber);
  }
}

/** A subscription that fell too far behind: it must subscribe again (without Last-Event-ID, if that is what it fell behind). */
const lagging = (since = "") =>
  subscriptionError(503, "SUBSCRIPTION_LAGGING", `This subscription fell more than ${MAX_QUEUED} events behind${since ? ` ${since}` : ""} and was closed: subscribe again${since ? " without it" : ""}.`);

/** A Last-Event-ID that events after it were purged since: resuming would skip them. */
const purged = () =>
  subscriptionError(
    503,
    "SUBSCRIPTION_LAGGING",
    "The outbox no longer holds some of the events after this Last-Event-ID (events are kept OUTBOX_RETENTION_HOURS): read what you need again, and subscribe without Last-Event-ID.",
  );

/** An error a subscriber sees as itself (an ApiError, so not masked), with a code of its own. */
function subscriptionError(status: number, code: string, message: string): ApiError {
  const error = new ApiError(status, message);
  (error.extensions as Record<string, unknown>).code = code;
  return error;
}

/** How `readableBy` keys its answer: one entry per user (and administrator rights), one for anonymous callers. */
export const viewerKey = (viewer: Viewer) => (viewer.user ? `${viewer.user.id}${viewer.user.isAdmin ? "a" : ""}` : "anonymous");

function distinctViewers(viewers: Viewer[]): Viewer[] {
  const byKey = new Map<string, Viewer>();
  for (const viewer of viewers) byKey.set(viewerKey(viewer), viewer);
  return [...byKey.values()];
}

/**
 * The event as `viewer` may see it: an anonymous record's actor, and the payload's actor-only names
 * (`WrittenRecords.actorOnlyNames`), only for the actor and administrators.
 */
export function shownTo(viewer: Viewer, stored: StoredEvent): DeliveredEvent {
  // The author and readers are the server's own reading of who is told (D13, D14), not part of the event as delivered.
  const event = publicEvent(stored);
  const cursor = `${event.xid}:${event.id}`;
  if (viewer.user?.isAdmin) return { ...event, cursor };
  const actor = viewer.user !== null && viewer.user.id === event.actorId;
  // The actor-only names are the record's author's: the actor of its creation. A later change's actor may be
  // someone else who may change it (a group's manager), who is not told who else an entry went to.
  const creation = event.type.endsWith("Created");
  const hidden = actor && creation ? [] : (writtenRecordsOf(event.area)?.actorOnlyNames ?? []);
  const payload = hidden.some((name) => name in event.payload) ? Object.fromEntries(Object.entries(event.payload).filter(([name]) => !hidden.includes(name))) : event.payload;
  return { ...event, payload, actorId: authorShownTo(viewer, event.anonymous, event.actorId) ? event.actorId : null, cursor };
}

/**
 * Per viewer (by `viewerKey`), the ids of the events they may read now, in two statements for the whole
 * batch however many viewers ask: which records still exist, then per area the batch's records each viewer may
 * read (the area's rule as `visibleSql` renders it, so hidden groups, levels, publishing and creators count as
 * for reads) and, for `managers` events, the records they manage. A record that is gone is read by the same rule
 * over what its event recorded (src/common/policy.ts, `goneKnows`: published or not, the class of caller that
 * read it, its scope), its scope's members and moderators by their memberships now; the person an event is
 * about, and its actor, from the event itself.
 * Marks `anonymous` the events whose record hides its author now (`shownTo` then hides their actor).
 * `sql`: the client to ask through (an outbox consumer's transaction: on PGlite another connection would wait for it).
 */
export async function readableBy(db: PrismaClient, viewers: Viewer[], events: StoredEvent[], sql: SqlClient = backgroundSqlOf(db)): Promise<Map<string, Set<string>>> {
  const areas = [...new Set(events.map((event) => event.area))].flatMap((area) => {
    const written = writtenRecordsOf(area);
    if (!written) return [];
    const info = modelInfo(db, written.records.model);
    const ids = [...new Set(events.filter((event) => event.area === area).map((event) => event.recordId))];
    return [{ area, written, info, ids, id: column(info, "t", "id") }];
  });
  // Whether each record still exists, and whether it hides its author now: once per area, whoever asks.
  const exists = areas.flatMap(({ area, written, info, ids, id }) => {
    const hidden = hidesAuthorSql(written, (field) => column(info, "t", field));
    return [
      Prisma.sql`SELECT -1 AS viewer, ${area}::text AS area, ${id} AS record, 'exists' AS relation FROM ${table(info, "t")} WHERE ${id} = ANY(${ids}::int[])`,
      ...(hidden ? [Prisma.sql`SELECT -1 AS viewer, ${area}::text AS area, ${id} AS record, 'anonymous' AS relation FROM ${table(info, "t")} WHERE ${id} = ANY(${ids}::int[]) AND ${hidden}`] : []),
    ];
  });
  // What each viewer may read and manage, in one statement for them all: the rule's SQL is the same for every
  // signed-in user who is not an administrator, with their id a column of an unnest of the viewers (`UserRef`),
  // and the same for every anonymous caller; administrators read everything and are not asked. So however many
  // subscribe (a thread's 1,000 followers), the statement has the areas' parts, not a part per viewer.
  const signedIn = viewers.flatMap((viewer, index) => (viewer.user && !viewer.user.isAdmin ? [{ index, id: viewer.user.id }] : []));
  const anonymousAt = viewers.flatMap((viewer, index) => (viewer.user ? [] : [index]));
  const asked: RuleViewer = { user: { id: Prisma.sql`asked.user_id`, isAdmin: false } };
  const signedInViewers = Prisma.sql`unnest(${signedIn.map((viewer) => viewer.index)}::int[], ${signedIn.map((viewer) => viewer.id)}::int[]) AS asked (viewer, user_id)`;
  const anonymousViewers = Prisma.sql`unnest(${anonymousAt}::int[]) AS asked (viewer)`;
  const rights = areas.flatMap(({ area, written, info, ids, id }) => {
    // Read by the record's read rule, and for `listers` events by its list rule too (a hidden group's invitee
    // reads the group, not who is in it).
    const listed = events.some((event) => event.area === area && event.audience === "listers");
    const ruled = (relation: "read" | "list") => (who: Prisma.Sql, viewer: RuleViewer) =>
      Prisma.sql`SELECT asked.viewer, ${area}::text AS area, ${id} AS record, ${relation}::text AS relation FROM ${who}, ${table(info, "t")} WHERE ${id} = ANY(${ids}::int[]) AND ${visibleSql(db, written.records, viewer, "t", new Date(), undefined, relation)}`;
    const readBy = ruled("read");
    const listedBy = ruled("list");
    return [
      ...(anonymousAt.length ? [readBy(anonymousViewers, { user: null })] : []),
      ...(signedIn.length ? [readBy(signedInViewers, asked)] : []),
      ...(listed && anonymousAt.length ? [listedBy(anonymousViewers, { user: null })] : []),
      ...(listed && signedIn.length ? [listedBy(signedInViewers, asked)] : []),
      // Who manages the record, as a write asks it (its creator, the scope kind's managers, the record's own: `isScope`), unlocked;
      // asked only for an area with events for its managers in the batch.
      ...(signedIn.length && events.some((event) => event.area === area && event.audience === "managers")
        ? [
            Prisma.sql`SELECT asked.viewer, ${area}::text AS area, ${id} AS record, 'manage' AS relation FROM ${signedInViewers}, ${table(info, "t")}
                        WHERE ${id} = ANY(${ids}::int[]) AND ${managesSql(info, written.records, "t", asked, { lock: false })}`,
          ]
        : []),
    ];
  });
  type Found = { viewer: number; area: string; record: number; relation: string };
  const found: Found[] = [];
  const run = async (parts: Prisma.Sql[]) => {
    // A loop, not push(...rows): a statement's rows can outnumber what a call's arguments may hold.
    if (parts.length) for (const row of await sql.query<Found>(Prisma.join(parts, " UNION ALL "))) found.push(row);
  };
  await run(exists);
  // A record that is gone is read as its rule reads what its event recorded (src/common/policy.ts, `goneKnows`):
  // published or not, the class of caller that read it, its scope. Anonymous callers are answered from that
  // alone; for signed-in ones what is left is their membership or moderation of the event's scope now, asked in
  // the same statement as the rights, one part per distinct question (keyed by the scope, record -1).
  const present = new Set(found.map((row) => `${row.area}:${row.record}`));
  const goneReaders = new Map<StoredEvent, { anonymous: boolean; signedIn: boolean | string; author: boolean }>();
  const goneQuestions = new Map<string, Prisma.Sql>();
  for (const event of events) {
    const records = writtenRecordsOf(event.area)?.records;
    if (!records || present.has(`${event.area}:${event.recordId}`)) continue;
    // Membership as the live rule asks it: of the record's scope (scoped records), or of the record itself
    // (`isScope`: a hidden group's members), by its id; moderation, of the record's scope.
    const [scopeSql, scopeIdSql] = [Prisma.sql`${event.scope}::text`, Prisma.sql`${event.scopeId}::int`];
    const privateTo = records.scoped ? null : privateToSql(records, asked.user!.id, "list");
    // A deleted record's own readers are on its deletion's event: its memberships went with it (D14).
    const member = records.scoped
      ? belongsToRecordScopeSql(scopeSql, scopeIdSql, asked.user!.id)
      : event.readerIds
        ? Prisma.sql`${asked.user!.id} = ANY(${event.readerIds}::int[])`
        : privateTo && Prisma.sql`${event.recordId}::int IN (${privateTo})`;
    const moderates = records.scoped ? moderatedScopeSql(records, asked.user!.id, scopeSql, scopeIdSql) : null;
    const asks = { member: member !== null, moderates: moderates !== null };
    const rule = policyOf(records).visible;
    const anonymous = fold(rule, goneKnows(event, { signedIn: false, administrator: false }, asks));
    const signedIn = fold(rule, goneKnows(event, { signedIn: true, administrator: false }, asks));
    // Its author (D13), by the same rule with the creator leaves theirs (which answers it from authorship alone:
    // writtenRecords refuses a rule that would not).
    const author = event.authorId != null && fold(rule, goneKnows(event, { signedIn: true, administrator: false, author: true }, asks)) === true;
    // Keyed by what the condition reads: the event's scope, or for unscoped records the record itself (`isScope`).
    const about = records.scoped ? `${event.scope} ${event.scopeId}` : `record ${event.recordId}${event.readerIds ? ` readers of ${event.id}` : ""}`;
    const question: boolean | string = typeof signedIn === "boolean" ? signedIn : `gone ${event.area} ${about} ${event.visibility} ${event.published}`;
    if (typeof question === "string" && !goneQuestions.has(question)) {
      const condition = renderSql(signedIn, (leaf) => {
        if (leaf === "member") return member!;
        if (leaf === "moderates") return moderates!;
        throw new Error(`a gone record's rule does not ask ${JSON.stringify(leaf)}`);
      });
      goneQuestions.set(question, Prisma.sql`SELECT asked.viewer, ${event.area}::text AS area, -1 AS record, ${question}::text AS relation FROM ${signedInViewers} WHERE ${condition}`);
    }
    goneReaders.set(event, { anonymous: anonymous === true, signedIn: question, author });
  }
  const scopeRights = signedIn.length ? [...goneQuestions.values()] : [];
  await run([...rights, ...scopeRights]);
  const relations = new Set(found.map((row) => `${row.viewer}:${row.area}:${row.record}:${row.relation}`));
  // An event of a record that hides its author now hides its actor too, whatever it said when written (a post
  // made anonymous later): a subscriber resuming from an older event, or a webhook behind, is not told.
  for (const event of events) if (relations.has(`-1:${event.area}:${event.recordId}:anonymous`)) event.anonymous = true;
  const result = new Map<string, Set<string>>();
  viewers.forEach((viewer, index) => {
    const allowed = new Set<string>();
    for (const event of events) {
      const has = (relation: string) => relations.has(`${relation === "exists" ? -1 : index}:${event.area}:${event.recordId}:${relation}`);
      const user = viewer.user;
      const mayRead = (() => {
        if (user?.isAdmin) return true;
        if (user && (user.id === event.subjectId || (event.audience !== "managers" && user.id === event.actorId && !has("exists")))) return true;
        if (event.audience === "managers") return has("manage");
        if (has("exists")) return has(event.audience === "listers" ? "list" : "read");
        // The record is gone: what its event says it was.
        const gone = goneReaders.get(event);
        if (!gone) return false;
        if (!user) return gone.anonymous;
        if (user.id === event.authorId && gone.author) return true;
        return typeof gone.signedIn === "boolean" ? gone.signedIn : relations.has(`${index}:${event.area}:-1:${gone.signedIn}`);
      })();
      if (mayRead) allowed.add(event.id);
    }
    result.set(viewerKey(viewer), allowed);
  });
  return result;
}

/** A Last-Event-ID (an event's `id`: `<xid>:<id>`) as a cursor, or null when it is not one. */
export function cursorOf(lastEventId: string): OutboxCursor | null {
  const match = /^(\d{1,19}):(\d{1,19})$/.exec(lastEventId.trim());
  return match ? { xid: match[1]!, id: match[2]! } : null;
}

/** Whether `event` (or a cursor) comes after `cursor` in the outbox's reading order. */
function isAfter(event: { xid: string; id: string }, cursor: OutboxCursor): boolean {
  const [xid, after] = [BigInt(event.xid), BigInt(cursor.xid)];
  return xid > after || (xid === after && BigInt(event.id) > BigInt(cursor.id));
}

/**
 * Where a new subscription starts: the last readable event's place (the outbox's end as a reader sees it
 * now), read twice, the later kept. RUNNING_HERE_FROM takes the snapshot when its statement starts and reads
 * pg_stat_activity after: a transaction of another database that ends in between is in the one and no longer
 * in the other, so it counts as this database's, and that one read's end falls back to before it — seconds
 * back for a long transaction (another test file's seed, a DROP DATABASE) — and the subscriber was sent
 * events committed before it subscribed (and the hub read them again). A transaction that has ended is in
 * no later snapshot, so the second read does not fall back for it; each read is commit-safe (every
 * transaction that commits after it has a greater xid than its end), so the later of the two is too.
 * `sql`: the client to read through (tests pass one that holds a statement between its snapshot and the rest).
 */
export async function endOfOutbox(sql: SqlClient): Promise<OutboxCursor> {
  const first = await lastReadable(sql);
  const second = await lastReadable(sql);
  return isAfter(first, second) ? first : second;
}

async function lastReadable(sql: SqlClient): Promise<OutboxCursor> {
  const [last] = await sql.query<{ xid: string; id: string }>(
    // outbox.xid: the select list's xid is text, which would order "99" after "100".
    Prisma.sql`SELECT xid::text AS xid, id::text AS id FROM outbox WHERE xid < ${RUNNING_HERE_FROM} ORDER BY outbox.xid DESC, outbox.id DESC LIMIT 1`,
  );
  return last ? { xid: last.xid, id: last.id } : { xid: "0", id: "0" };
}

/**
 * Keeps this server's subscribers fed: the hub reads the outbox when this process commits events, or
 * another instance does (the Redis wake-up), every `pollMs` otherwise, and again soon while events wait
 * behind a transaction in flight (`serialReads`). While nobody subscribes, nothing is read.
 */
export function tailOutbox(db: PrismaClient, hub: SubscriptionHub, options: { pollMs: number; log: (line: string, error?: unknown) => void }): { stop(): void } {
  const reads = serialReads(async () => ({ value: undefined, pending: await hub.readNew() }), options.pollMs, (error) =>
    options.log("reading the outbox for subscriptions failed", error),
  );
  const read = () => void (hub.hasSubscribers && reads.run());
  const stopWaking = onOutboxWritten(db, read);
  const poll = options.pollMs > 0 ? setInterval(read, options.pollMs) : undefined;
  poll?.unref();
  return {
    stop() {
      stopWaking();
      clearInterval(poll);
      reads.stop();
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

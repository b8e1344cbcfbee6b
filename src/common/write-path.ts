import { Prisma } from "../generated/prisma/client.js";
import { isConnectionLost, sqlClientOf, utcTimestamp, type SqlClient } from "../db/sql.js";
import { ApiError, badInput, conflict, forbidden, notFound } from "./errors.js";
import { audienceOf, domainEvents, type EventType } from "./events.js";
import { outboxWritten } from "./outbox.js";
import { columnValues, type AnyFields } from "./fields.js";
import { changesNothing } from "./validation.js";
import { accessFieldOf, recordReadersSql, recordEventScope, type RecordsDeclaration } from "./records.js";
import { answeredCreates } from "./record-reads.js";
import { column, modelInfo, table, type ModelInfo } from "./model.js";
import { confinementSql, managesSql, ownRecordSql, publishedOver, visibleSql } from "./visibility.js";
import { createdAnswer, decodeScalars, maskedVersion, readsOwnCreation, rowsStatement, type Selection } from "./row-reading.js";
import { recordScopeHeldSql, scopeKindCount, secludedScopeSql } from "./scope-kinds.js";
import { scopeWriteCheck, type ScopeRule } from "./scopes.js";
import { eventVisibilitySql, fold, goneKnows, policyOf } from "./policy.js";
import { sqlOf, type RequestContext } from "./context.js";
import { uniqueViolation } from "../db/errors.js";
import { outcomeUnknown, raisedRefusal } from "./database-errors.js";

/**
 * The one write path (docs/adding-an-area.md, "Writes"). Every create, update, delete and named
 * transition of every area runs through `createRecord` or `changeRecord`, which in ONE transaction:
 * - lock the row it changes (`SELECT … FOR UPDATE`) and authorize on that locked row, or insert the new one;
 * - run the area's statements (through `tx`, plain SQL: no Prisma inside, see SqlClient.transaction);
 * - append the domain event to the outbox;
 * - claim the request's Idempotency-Key and check its If-Match.
 * A refused or failed write throws, and the transaction rolls back: neither the change nor its event is left.
 * The kit's reads (findVisible, takenNames, scope checks) run in the same transaction through `sqlOf(ctx)`.
 */

/** What the write path needs to know of an area's records, besides their records declaration. */
export interface WrittenRecords {
  area: string;
  records: RecordsDeclaration;
  /** Fields that name a record (title, pagename): copied into every event's payload. Never bodies. */
  names: readonly string[];
  /**
   * Of `names`, those shown to the event's actor and administrators only (the server reads them all): an
   * activity entry's `recipients`, which the feed subscription matches on but a reader must not learn.
   */
  actorOnlyNames?: readonly string[];
  /** `Wiki page 7 not found.` */
  notFound(id: number): string;
  /** Why a caller who may see a record may not change it (403). */
  forbidden: string;
  /** The GraphQL subscription to one record's events, by the naming rule (`wikiPageChanged`): src/events/subscriptions.ts. */
  changedSubscription?: string;
}

const writtenByArea = new Map<string, WrittenRecords>();

/**
 * Whether a record hides its author now (its `anonymous` field set), over `value(field)` (a column of an alias,
 * or a field of a returned row); null for records that never hide it. Events, their readers and the activity
 * entries that follow records ask it.
 */
export const hidesAuthorSql = (target: WrittenRecords, value: (field: string) => Prisma.Sql): Prisma.Sql | null =>
  target.records.anonymous ? Prisma.sql`(${value(target.records.anonymous)})::int <> 0` : null;

/**
 * Declares an area's written records (src/<area>/service.ts); the events' readers find them by area.
 * Records with a publishing window get the events of its opening and closing (`appendWindowEvents`).
 */
export const writtenRecords = (declaration: WrittenRecords): WrittenRecords => {
  if (writtenByArea.has(declaration.area)) throw new Error(`written records of ${declaration.area} are declared twice`);
  // Who is told of a gone record's events asks its author nothing but that they wrote it (readableBy): a rule
  // that asked more would leave authors untold, so it is refused here, once, when the records are declared.
  const author = declaration.records.creator
    ? fold(policyOf(declaration.records).visible, goneKnows({ published: false, visibility: "private" }, { signedIn: true, administrator: false, author: true }, { member: true, moderates: true }))
    : true;
  if (typeof author !== "boolean") throw new Error(`${declaration.area}: the records' rule asks more of a gone record's author than that they wrote it`);
  writtenByArea.set(declaration.area, declaration);
  if (declaration.records.window) {
    domainEvents(declaration.area, {
      windowOpened: "A published record's publishing window opened (its `publish_up` came): readers see it from now on.",
      windowClosed: "A published record's publishing window closed (its `publish_down` came): readers no longer see it.",
    });
  }
  return declaration;
};

/**
 * Appends the events of the publishing windows of `target`'s records that opened or closed after `from`
 * and up to `to` (SQL times), for published records only, in the open transaction: ONE statement. The
 * system is their actor. Answers how many.
 */
export async function appendWindowEvents(tx: RequestContext & { tx: SqlClient }, target: WrittenRecords, from: Prisma.Sql, to: Prisma.Sql): Promise<number> {
  const { records } = target;
  if (!records.window) return 0;
  const info = modelInfo(tx.db, records.model);
  const [up, down] = [column(info, "t", records.window.up), column(info, "t", records.window.down)];
  const published = Prisma.sql`${column(info, "t", records.published.field)} = ${records.published.value}`;
  // Only a moment after the record was written: one made with its window open from the start (publish_up
  // now) opened with its created event, and one made with its window already past was never shown.
  const afterCreated = (moment: Prisma.Sql) => (info.fields.has("created") ? Prisma.sql` AND ${moment} > ${column(info, "t", "created")}` : Prisma.empty);
  const crossed = (moment: Prisma.Sql, also: Prisma.Sql) =>
    Prisma.sql`(SELECT ${returning(info, records)} FROM ${table(info, "t")}
                 WHERE ${published} AND ${moment} > ${from} AND ${moment} <= ${to}${afterCreated(moment)} AND ${also}) AS record`;
  const system: EventWriter = { db: tx.db, actorId: null };
  const [row] = await tx.tx.query<{ appended: number }>(Prisma.sql`
    WITH opened AS (${eventStatement(system, target, `${target.area}.windowOpened` as EventType, crossed(up, Prisma.sql`(${down} IS NULL OR ${down} > ${up})`), [records.window.up])} RETURNING 1),
         closed AS (${eventStatement(system, target, `${target.area}.windowClosed` as EventType, crossed(down, Prisma.sql`${down} > ${up}`), [records.window.down])} RETURNING 1)
    SELECT (SELECT count(*) FROM opened)::int + (SELECT count(*) FROM closed)::int AS appended`);
  return row!.appended;
}

/** Every area's written records, in declaration order (the areas' events are about them). */
export const everyWrittenRecords = (): WrittenRecords[] => [...writtenByArea.values()];

/** The written records of an event's `area`, if it declared any. */
export const writtenRecordsOf = (area: string): WrittenRecords | undefined => writtenByArea.get(area);

type Row = Record<string, unknown> & { id: number };

/** A locked row with what the caller may do with it, in the statement that locked it. */
type Locked<R> = R & { __visible: boolean; __manages: boolean; __version: string };

/** Runs `work` in the request's write transaction: the one already open (a write calling another), or a new one. */
export async function inWriteTransaction<T>(ctx: RequestContext, work: (tx: RequestContext & { tx: SqlClient }) => Promise<T>): Promise<T> {
  if (ctx.tx) return work(ctx as RequestContext & { tx: SqlClient });
  const result = await sqlClientOf(ctx.db).transaction((client) => work(Object.assign(Object.create(ctx) as RequestContext, { tx: client })));
  outboxWritten(ctx.db);
  return result;
}

/** The record's version for If-Match and ETag: its row's xmin, which every update of the row changes. */
export const recordEtag = (version: string) => `"${version}"`;

/** Whether an If-Match tag names this row version, as any reader's ETag gave it: with its private fields masked (`maskedVersion`) or not. */
const etagMatches = (tag: string, version: string) => tag === "*" || tag === recordEtag(version) || tag === recordEtag(maskedVersion(version));

/**
 * Creates one record in ONE statement, which PostgreSQL runs as a transaction of its own (or inside the
 * open one): `inserted` is the WITH list that inserts it, whose entry `created` RETURNs every scalar
 * (`insertStatement`); the kit adds the outbox event and the Idempotency-Key claim as further entries
 * reading `created`. Answers the new row, or null when `created` inserted nothing (its ON CONFLICT DO
 * NOTHING met a taken name: the area picks another, see `createWithUniqueName`). Authorization (may the
 * caller write in this scope) is the service's, before.
 */
export async function createRecord<R extends Row>(
  ctx: RequestContext,
  target: WrittenRecords,
  options: {
    event: EventType;
    inserted: Prisma.Sql;
    /**
     * The scope the record goes into: whether it exists and admits the caller is asked in this statement
     * (`scopeWriteCheck`), so the scope cannot be deleted, nor the caller removed from it, between the
     * check and the insert (a kind's `exists` and `writers` lock what they read: the group's row, the membership).
     */
    scope?: { scope: string; scopeId: number; admits?: ScopeRule };
    /**
     * What the caller's answer selects (Pothos' query): the statement reads it too (`createdAnswer`), so
     * `createdRecord` needs no second statement. `relations`: the to-one relations whose rows this
     * statement inserts, and the WITH entry (RETURNING `*`) that holds each (a page's first revision).
     */
    answer?: { query: Selection; relations?: Record<string, string> };
  },
): Promise<R | null> {
  const info = modelInfo(ctx.db, target.records.model);
  const answer = options.answer ? createdAnswer(ctx.db, target.records, options.answer.query, ctx.viewer, options.answer.relations) : null;
  const changed = writtenScalars(info, target.records).filter((field) => field.name !== "id").map((field) => field.name);
  const claim = ctx.conditions.unclaimedKey ? claimStatement(ctx, Prisma.sql`SELECT id FROM created`) : null;
  const check = options.scope ? scopeWriteCheck(ctx, options.scope.scope, options.scope.scopeId, options.scope.admits) : null;
  // The check is a CTE the answer reads, so it runs in this statement and a refusal it raises undoes the
  // insert; read as the outer side of a LEFT JOIN, so it is asked even when a taken name inserted nothing
  // (a refusal comes before "name taken", which would tell an outsider what the scope holds).
  const statement = Prisma.sql`WITH ${options.inserted},
    event AS (${eventStatement(writerOf(ctx), target, options.event, Prisma.sql`created`, changed)})${claim ? Prisma.sql`, claim AS (${claim})` : Prisma.empty}${
      check ? Prisma.sql`, scope_check AS (${check})` : Prisma.empty
    }
    SELECT ${Prisma.join([Prisma.sql`created.*`, ...(answer?.columns ?? [])])} FROM ${check ? Prisma.sql`scope_check LEFT JOIN created ON TRUE` : Prisma.sql`created`}`;
  const [row] = await sqlOf(ctx)
    .query<Record<string, unknown>>(statement)
    .catch((error: unknown) => {
      // Outside a transaction the statement commits on its own: lost without an answer, it may have been made.
      if (!ctx.tx && isConnectionLost(error)) throw Object.assign(outcomeUnknown(), { cause: error });
      const refusal = raisedRefusal(error);
      if (refusal) throw refusal;
      return idempotencyConflict(error);
    });
  if (!ctx.tx) outboxWritten(ctx.db);
  if (!row || row.id == null) return null;
  if (claim) ctx.conditions.claimKey();
  const { __version: version, ...created } = row;
  if (!answer || !readsOwnCreation(target.records, ctx.viewer, created)) return decodeScalars<R>(info, created);
  // The row's version, as a read would give it (the ETag of the REST answer).
  ctx.conditions.answered(version as string);
  const answered = answer.decode(created) as R;
  answeredCreates.set(answered, options.answer!.query);
  return answered;
}

/** What a change did: the row after it (null: deleted) and the fields it changed (none: no event). */
export type Change<R> =
  /** The change ran its statements itself: the row after it (null: deleted) and, if known, the fields it changed. */
  | { row: R | null; changed?: string[]; subjectId?: number; event?: EventType }
  /**
   * The change is one UPDATE of the record (`updateStatement`), after the WITH entries in `with` (a new
   * revision): the kit runs it in one statement with the event of the fields it changed, found by comparing
   * the row before and after in SQL. The lock is held for one round trip less.
   */
  | { update: Prisma.Sql; with?: Prisma.Sql };

/**
 * Changes one existing record: locks it, authorizes on the locked row (default: its creator, a manager of
 * its scope, administrators; 403 for callers who may see it, 404 for the others), checks If-Match, runs
 * `change`, and appends the event unless nothing changed. Answers the row after the change (null: deleted).
 */
export async function changeRecord<R extends Row>(
  ctx: RequestContext,
  target: WrittenRecords,
  id: number,
  options: {
    event: EventType;
    /** Replaces the default rule; throws the refusal. Runs on the locked row. */
    authorize?(locked: Locked<R>): void;
    /** The change deletes the record: its event is appended first, from the row as it was. */
    deletes?: boolean;
    /**
     * Locks taken before the record's own, in the order the area's other writes take them (a forum reply's
     * thread: a moderator's change to the thread locks it, then its counts, then its replies).
     */
    lockFirst?(tx: RequestContext & { tx: SqlClient }): Promise<unknown>;
    change(tx: RequestContext & { tx: SqlClient }, locked: R): Promise<Change<R>>;
  },
): Promise<R | null> {
  return inWriteTransaction(ctx, async (tx) => {
    await options.lockFirst?.(tx);
    const locked = await lockRecord<R>(tx, target, id);
    if (!locked) throw notFound(target.notFound(id));
    if (options.authorize) options.authorize(locked);
    else if (!locked.__manages) throw locked.__visible ? forbidden(target.forbidden) : notFound(target.notFound(id));
    if (ctx.conditions.ifMatch && !ctx.conditions.ifMatch.some((tag) => etagMatches(tag, locked.__version))) {
      throw new ApiError(412, `The record has changed since the If-Match version was read (now ${recordEtag(locked.__version)}): read it again.`, [
        { parameter: "If-Match", message: "names an older version of the record" },
      ]);
    }
    const { __visible: _visible, __manages: _manages, __version: _version, ...before } = locked;
    // A delete's event is read from the row before it goes.
    if (options.deletes) await appendEvent(tx, target, options.event, id, [], undefined, { deletion: true });
    const change = await options.change(tx, before as unknown as R);
    const info = modelInfo(ctx.db, target.records.model);
    if ("update" in change) {
      const [row] = await tx.tx.query<Record<string, unknown>>(updateWithEvent(tx, target, options.event, id, change)).catch(idempotencyConflict);
      if (tx.conditions.idempotencyKey) tx.conditions.claimKey();
      return decodeScalars<R>(info, row!);
    }
    const after = change.row;
    if (after !== null && change.changed?.length) await appendEvent(tx, target, change.event ?? options.event, id, change.changed, change.subjectId);
    else await claimKey(tx, id);
    return after;
  });
}

/**
 * The `change` of a plain update (no revision, no name to keep unique, no scope to move): nothing when no
 * field is given, else one UPDATE of the given fields' columns, by the area's field table.
 */
export function fieldsChange<R>(records: RecordsDeclaration, fields: AnyFields, id: number, data: Record<string, unknown>) {
  return async (tx: RequestContext & { tx: SqlClient }, row: R): Promise<Change<R>> =>
    changesNothing(data) ? { row, changed: [] } : { update: updateStatement(tx, records, id, columnValues(fields, data, "update")) };
}

/**
 * Deletes one record through `changeRecord` (locked, authorized by the default rule or `authorize`, its
 * event read from the row before it goes, If-Match honoured): the rows that hang on it go by their
 * foreign keys' ON DELETE CASCADE. Answers the id.
 */
export async function deleteRecord(
  ctx: RequestContext,
  target: WrittenRecords,
  id: number,
  event: EventType,
  options: {
    authorize?(locked: Locked<Row>): void;
    /** Removes what goes with the record (a category's posts, each with its event), in its transaction, once it is locked and authorized. */
    before?(tx: RequestContext & { tx: SqlClient }, locked: Row): Promise<unknown>;
    lockFirst?(tx: RequestContext & { tx: SqlClient }): Promise<unknown>;
  } = {},
): Promise<number> {
  await changeRecord(ctx, target, id, {
    event,
    authorize: options.authorize,
    lockFirst: options.lockFirst,
    deletes: true,
    async change(tx, locked) {
      await options.before?.(tx, locked);
      await tx.tx.query(deleteStatement(tx, target.records, id));
      return { row: null };
    },
  });
  return id;
}

/**
 * Deletes every record of one scope (a group's, when the group goes: src/common/group-content.ts) inside the open
 * write transaction, each with its own deleted event: ONE statement however many there are (the DELETE
 * locks them all as it goes, and the events are read from the rows it returns), so a group of 10,000 pages
 * costs one round trip, not three per page. The caller has authorized the whole removal (the group's
 * managers and administrators delete a group and all in it). Answers how many.
 */
export const deleteScopeRecords = (tx: RequestContext, target: WrittenRecords, scope: { scope: string; scopeId: number }, event: EventType): Promise<number> =>
  deleteRecordsWhere(tx, target, { scope: scope.scope, scopeId: scope.scopeId }, event);

/**
 * Deletes every record whose fields hold these values (a category's posts: `{ categoryId }`), as
 * `deleteScopeRecords` does: each with its own deleted event, in ONE statement, authorized by the caller.
 */
export async function deleteRecordsWhere(tx: RequestContext, target: WrittenRecords, where: Record<string, string | number>, event: EventType): Promise<number> {
  const info = modelInfo(tx.db, target.records.model);
  const conditions = Object.entries(where).map(([field, value]) => Prisma.sql`${column(info, "t", field)} = ${value}`);
  const [row] = await sqlOf(tx).query<{ deleted: number }>(
    Prisma.sql`WITH gone AS (DELETE FROM ${table(info, "t")} WHERE ${Prisma.join(conditions, " AND ")}
                 RETURNING ${returning(info, target.records)}),
               event AS (${eventStatement(writerOf(tx), target, event, Prisma.sql`gone`, [])})
               SELECT count(*)::int AS deleted FROM gone`,
  );
  return row!.deleted;
}

/** The row, locked, with whether the caller may see it and may manage it, and its version. */
async function lockRecord<R>(ctx: RequestContext, target: WrittenRecords, id: number): Promise<Locked<R> | null> {
  const info = modelInfo(ctx.db, target.records.model);
  const statement = rowsStatement<Locked<R>>(ctx.db, target.records, undefined, {
    // A record outside the scope a confined request's path names is not there for it (404). The record's
    // scope is held before the select list reads who manages it (recordScopeHeldSql: lock order).
    where: Prisma.sql`${column(info, "t", "id")} = ${id} AND ${confinementSql(ctx, target.records)}${
      target.records.scoped ? Prisma.sql` AND ${recordScopeHeldSql(column(info, "t", "scope"), column(info, "t", "scopeId"))}` : Prisma.empty
    }`,
    extra: Prisma.sql`${visibleSql(ctx.db, target.records, ctx.viewer)} AS "__visible", ${managesSql(info, target.records, "t", ctx.viewer)} AS "__manages", t.xmin::text AS "__version"`,
    lock: true,
  });
  const [row] = await statement.finish(await ctx.tx!.query(statement.sql));
  return row ?? null;
}


/** The event (read from the record's row as the transaction sees it), then the Idempotency-Key claim. */
async function appendEvent(
  tx: RequestContext & { tx: SqlClient },
  target: WrittenRecords,
  event: EventType,
  id: number,
  changed: string[],
  subjectId?: number,
  { deletion = false }: { deletion?: boolean } = {},
) {
  const info = modelInfo(tx.db, target.records.model);
  await tx.tx.query(
    eventStatement(writerOf(tx), target, event, Prisma.sql`(SELECT ${returning(info, target.records)} FROM ${table(info, "t")} WHERE ${column(info, "t", "id")} = ${id}) AS record`, changed, undefined, subjectId, { deletion }),
  );
  await claimKey(tx, id);
}

/**
 * Claims the operation's Idempotency-Key for the record `id` in the open transaction (the execution core opens
 * one for a keyed request), for a write made outside createRecord/changeRecord (an account): its retry then
 * gets the stored answer, not a second attempt.
 */
export async function claimIdempotencyKey(ctx: RequestContext, id: number): Promise<void> {
  if (ctx.tx) await claimKey(ctx as RequestContext & { tx: SqlClient }, id);
}

/** The request's Idempotency-Key, claimed for record `id` in the write's transaction (a write that changed nothing too). */
async function claimKey(tx: RequestContext & { tx: SqlClient }, id: number) {
  if (!tx.conditions.unclaimedKey) return;
  await tx.tx.query(claimStatement(tx, Prisma.sql`SELECT ${id}::int AS id`)).catch(idempotencyConflict);
  tx.conditions.claimKey();
}

/**
 * One statement: the change's WITH entries, the record as it was (`old`: every part of a statement sees the
 * rows as they were before it), the UPDATE, and its event naming the fields whose value differs — none
 * (an update that sets what was there) appends no event.
 */
function updateWithEvent(ctx: RequestContext & { tx: SqlClient }, target: WrittenRecords, type: EventType, id: number, change: { update: Prisma.Sql; with?: Prisma.Sql }) {
  const info = modelInfo(ctx.db, target.records.model);
  const compared = writtenScalars(info, target.records).filter((field) => !field.isUpdatedAt);
  const claim = ctx.conditions.unclaimedKey ? claimStatement(ctx, Prisma.sql`SELECT id FROM updated`) : null;
  const differing = Prisma.raw(
    compared.map((field) => `CASE WHEN updated."${field.name}" IS DISTINCT FROM old."${field.name}" THEN '${field.name}' END`).join(", "),
  );
  return Prisma.sql`WITH ${change.with ? Prisma.sql`${change.with}, ` : Prisma.empty}
    old AS (SELECT ${returning(info, target.records)} FROM ${table(info, "t")} WHERE ${column(info, "t", "id")} = ${id}),
    updated AS (${change.update}),
    changed AS (SELECT array_remove(ARRAY[${differing}], NULL) AS fields FROM updated, old),
    event AS (${eventStatement(writerOf(ctx), target, type, Prisma.sql`updated, changed`, Prisma.sql`changed.fields`, Prisma.sql`cardinality(changed.fields) > 0`)})${
      claim ? Prisma.sql`, claim AS (${claim})` : Prisma.empty
    }
    SELECT * FROM updated`;
}

/**
 * The INSERT of a write's domain event, its values read in SQL from `source` (a FROM item holding the
 * record's row: the `created` entry of a create, the row itself for an update or delete): the record's
 * scope, its visibility normalised across areas, whether it is published, its anonymity, its names.
 */
/**
 * Who appends an event: the database (for the record's model) and the event's actor (null: the system; a
 * field: the record's own, for records written on behalf of several actors in one statement — the
 * activity consumer's entries, whose author is the source event's actor).
 */
export interface EventWriter {
  db: RequestContext["db"];
  actorId: number | null | { field: string };
}

/** A request's writes append events as its signed-in caller. */
const writerOf = (ctx: RequestContext): EventWriter => ({ db: ctx.db, actorId: ctx.viewer.user?.id ?? null });

/**
 * The `type` event of each record in `source` (a FROM item holding the record's scalars under their field
 * names, as `returningScalars` answers them), appended by `writer`. Writes outside a request (an outbox
 * consumer's records, in the statement that inserts them) call it directly.
 */
export function eventStatement(
  writer: EventWriter,
  target: WrittenRecords,
  type: EventType,
  source: Prisma.Sql,
  changed: string[] | Prisma.Sql,
  when: Prisma.Sql = Prisma.sql`TRUE`,
  /** The person the event is about (an invitee, an applicant): with a `managers` audience, they learn of it too. */
  subjectId: number | null = null,
  /** The event is the record's deletion: it keeps the record's own readers (`recordReadersSql`, D14). */
  { deletion = false }: { deletion?: boolean } = {},
): Prisma.Sql {
  const { records } = target;
  const parts = eventParts(writer.db, target);
  const actor = writer.actorId !== null && typeof writer.actorId === "object" ? parts.field(writer.actorId.field) : Prisma.sql`${writer.actorId}`;
  const { visibility, publishedNow, payload, eventScope, hidesAuthor } = parts;
  const author = parts.author(writer.db, new Date());
  // A deleted record's own readers, whose memberships go with it (a hidden group's members and invitees: D14).
  // (The id named as `deleted.record_id`, where no table of the readers' sub-select can capture it.)
  const readersOf = deletion ? recordReadersSql(records, Prisma.raw("deleted.record_id")) : null;
  const readers = readersOf ? Prisma.sql`(SELECT ARRAY(${readersOf}) FROM (SELECT ${parts.field("id")} AS record_id) AS deleted)` : Prisma.sql`NULL`;
  return Prisma.sql`INSERT INTO outbox (occurred_at, type, area, record_id, actor_id, anonymous, scope, scope_id, visibility, published, audience, subject_id, author_id, reader_ids, changed, payload)
    SELECT ${NOW}, ${type}, ${target.area}, ${parts.field("id")}, ${actor}::int, ${hidesAuthor},
           ${eventScope.scope}, ${eventScope.scopeId}, ${visibility},
           ${publishedNow}, ${audienceOf(type)}, ${subjectId}::int, ${author}::int, ${readers}::int[], ${changed instanceof Prisma.Sql ? changed : Prisma.sql`${changed}::text[]`}, ${payload}
      FROM ${source} WHERE ${when}`;
}

interface EventParts {
  /** A field of the event's source, by name. */
  field: (name: string) => Prisma.Sql;
  visibility: Prisma.Sql;
  publishedNow: Prisma.Sql;
  /** The record's author as the event keeps it, the creator rule asked at `now`. */
  author: (db: EventWriter["db"], now: Date) => Prisma.Sql;
  payload: Prisma.Sql;
  eventScope: { scope: Prisma.Sql; scopeId: Prisma.Sql };
  hidesAuthor: Prisma.Sql;
}

const eventPartsByTarget = new WeakMap<WrittenRecords, { kinds: number; parts: EventParts }>();

/**
 * What an event's INSERT reads of its record, over the source's fields: the same for every event of the records
 * (and the scope kinds registered), so built once, not on every write (rendering the visibility rule on every
 * event was 400 ms of a 93 s CPU profile of the bench's server on reads and creates).
 */
function eventParts(db: EventWriter["db"], target: WrittenRecords): EventParts {
  const known = eventPartsByTarget.get(target);
  if (known && known.kinds === scopeKindCount()) return known.parts;
  const { records } = target;
  const info = modelInfo(db, records.model);
  // `source` holds the record's scalars under their field names (`returning`).
  const field = (name: string) => {
    if (!info.fields.has(name)) throw new Error(`${info.name} has no field ${name}`);
    return Prisma.raw(`"${name}"`);
  };
  // Who reads it, were it published (the rule for an anonymous caller, then for a user who belongs nowhere):
  // a record in a scope secluded from outsiders (a hidden group's) is private whatever its level says, and so
  // is one shown to an audience or to administrators only (docs/policy-design.md, D3).
  const visibility = eventVisibilitySql(records, (leaf) => {
    if (leaf === "secluded") return secludedScopeSql(field("scope"), field("scopeId"), null) ?? Prisma.sql`FALSE`;
    if (typeof leaf === "object") return Prisma.sql`${field(accessFieldOf(records))} IN (${Prisma.join(leaf.level.flatMap((level) => records.access!.valuesOf(level)))})`;
    throw new Error(`an event's visibility does not ask ${leaf}`);
  });
  // Published as readers see it at the write's time: for windowed records, inside the window too (an entry
  // scheduled for later, or past its end, is not published, whatever its state).
  const publishedNow = records.audience ? Prisma.sql`TRUE` : Prisma.sql`(${publishedOver(records, field, NOW)})`;
  // The record's author, for who is told of it once it is gone (docs/policy-design.md, D13): its creator, where
  // its creator rule holds for them over the row as written (a forum reply's author, while they may read its
  // thread). With a rule beyond the creator (a `parent`), the rule reads the source's row under its columns'
  // names (`written`, a sub-select of the source's fields, seen only inside it): the table itself would not
  // show a row this statement inserts, and the rule's own sub-selects read other rows (the thread).
  // (The rule is asked at the write's time: the moment is a parameter of each event's statement.)
  const creator = records.creator;
  const written = Prisma.raw(writtenScalars(info, records).map((scalar) => `"${scalar.name}" AS "${scalar.column}"`).join(", "));
  const author = (db: EventWriter["db"], now: Date) =>
    !creator
      ? Prisma.sql`NULL`
      : !records.parent
        ? field(creator)
        : Prisma.sql`(SELECT CASE WHEN ${ownRecordSql(db, records, { user: { id: column(info, "written", creator), isAdmin: false } }, "written", now)!} THEN ${column(
            info,
            "written",
            creator,
          )} END FROM (SELECT ${written}) AS written)`;
  const payload = Prisma.sql`jsonb_build_object('id', ${field("id")}${Prisma.join(
    target.names.map((name) => Prisma.sql`, ${name}::text, ${field(name)}`),
    "",
  )})`;
  const parts: EventParts = { field, visibility, publishedNow, author, payload, eventScope: recordEventScope(records, field), hidesAuthor: hidesAuthorSql(target, field) ?? Prisma.sql`false` };
  eventPartsByTarget.set(target, { kinds: scopeKindCount(), parts });
  return parts;
}

/**
 * The claim of the request's Idempotency-Key for the record `record` (a SELECT yielding its `id`), made when
 * it yields a row. A live key already claimed is a unique violation. The record's id is kept with the key,
 * so a retry whose first answer was never stored can still be told which record the write made.
 */
function claimStatement(ctx: RequestContext, record: Prisma.Sql): Prisma.Sql {
  const claim = ctx.conditions.unclaimedKey!;
  return Prisma.sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, record_id, created)
    SELECT ${ctx.viewer.user!.id}, ${claim.key}, ${claim.fingerprint}, written.id, ${NOW} FROM (${record}) AS written`;
}

/** A concurrent request with the same key committed first: this one writes nothing and says so. */
function idempotencyConflict(error: unknown): never {
  const fields = uniqueViolation(error)?.fields ?? [];
  if (fields.includes("user_id") && fields.includes("key")) {
    throw conflict("Idempotency-Key", "A request with this Idempotency-Key was made while this one ran; retry to get its answer.");
  }
  throw error;
}

// ---------------------------------------------------------------------------------------------------
// Statements from field values, by the Prisma model's columns (no Prisma query compiler on the write path).

/** A field's value as an SQL parameter of its column's type. */
function valueSql(info: ModelInfo, field: string, value: unknown): Prisma.Sql {
  const found = info.fields.get(field);
  if (!found || found.kind === "object") throw new Error(`${info.name} has no scalar field ${field}`);
  if (value === null) return Prisma.sql`NULL`;
  if (value instanceof Prisma.Sql) return value; // an expression over the row (alias t)
  if (found.type === "DateTime") return utcTimestamp(value as Date);
  if (found.type === "Json") return Prisma.sql`${JSON.stringify(value)}::jsonb`;
  if (found.isList) return Prisma.sql`${value as unknown[]}::${Prisma.raw(found.type === "String" ? "text[]" : "int[]")}`;
  return Prisma.sql`${value}`;
}

/**
 * The next id of a model's table, taken before its row is inserted (rows of one statement that refer to
 * each other: a page and its first revision). Its sequence is named as PostgreSQL names a serial column's
 * (`<table>_id_seq`; test/write-path.test.ts holds every table to it), so the statement does not look it
 * up on every run as `pg_get_serial_sequence` would (≈35 µs of the database's time per call).
 */
export function nextIdSql(ctx: RequestContext, model: Prisma.ModelName): Prisma.Sql {
  return Prisma.sql`nextval(${`${modelInfo(ctx.db, model).table}_id_seq`}::regclass)::int`;
}

/** The writing transaction's time, as the UTC `timestamp(3)` Prisma's columns hold. */
export const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')::timestamp(3)`;

/** `INSERT … RETURNING ${returningScalars(…)}`: every scalar of a record under its field name, as `createRecord` reads `created`. */
export const returningScalars = (ctx: Pick<RequestContext, "db">, records: RecordsDeclaration) => returning(modelInfo(ctx.db, records.model), records);

/** The scalars a write answers and its event compares: all but the columns kept for search only. */
const writtenScalars = (info: ModelInfo, records: RecordsDeclaration) => info.scalars.filter((field) => !records.searchOnly?.includes(field.name));

/** The select list answering every scalar under its field name (as reads answer rows). */
function returning(info: ModelInfo, records: RecordsDeclaration): Prisma.Sql {
  return Prisma.raw(
    writtenScalars(info, records)
      .map((field) => `"${field.column}" AS "${field.name}"`)
      .join(", "),
  );
}

/**
 * `INSERT … RETURNING` every scalar: `values` by field name (undefined: the column's default); the
 * updated-at stamp and an absent `created` are the transaction's time.
 */
export function insertStatement(ctx: RequestContext, records: RecordsDeclaration, values: Record<string, unknown>, options: { skipConflictOn?: string[] } = {}): Prisma.Sql {
  assertStaysConfined(ctx, records, values);
  const info = modelInfo(ctx.db, records.model);
  const given = Object.entries(values).filter(([, value]) => value !== undefined);
  for (const field of info.scalars) if ((field.isUpdatedAt || field.name === "created") && values[field.name] === undefined) given.push([field.name, NOW]);
  const columns = given.map(([field]) => Prisma.raw(`"${info.fields.get(field)!.column}"`));
  const params = given.map(([field, value]) => (value === NOW ? NOW : valueSql(info, field, value)));
  // A unique name taken already inserts nothing (and no event): the caller picks another.
  const onConflict = options.skipConflictOn
    ? Prisma.sql` ON CONFLICT (${Prisma.raw(options.skipConflictOn.map((field) => `"${info.fields.get(field)!.column}"`).join(", "))}) DO NOTHING`
    : Prisma.empty;
  // With the new row's version (xmin, as reads give it: the ETag of a create's answer).
  return Prisma.sql`INSERT INTO ${Prisma.raw(`"${info.table}"`)} (${Prisma.join(columns)}) VALUES (${Prisma.join(params)})${onConflict} RETURNING ${returning(info, records)}, xmin::text AS "__version"`;
}

/** `UPDATE … RETURNING` every scalar of the row `id`: the fields given (undefined: unchanged), and the updated-at stamp. */
export function updateStatement(ctx: RequestContext, records: RecordsDeclaration, id: number, values: Record<string, unknown>): Prisma.Sql {
  assertStaysConfined(ctx, records, values);
  const info = modelInfo(ctx.db, records.model);
  const sets = Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => Prisma.sql`${Prisma.raw(`"${info.fields.get(field)!.column}"`)} = ${valueSql(info, field, value)}`);
  for (const field of info.scalars) if (field.isUpdatedAt) sets.push(Prisma.sql`${Prisma.raw(`"${field.column}"`)} = ${NOW}`);
  return Prisma.sql`UPDATE ${table(info, "t")} SET ${Prisma.join(sets)} WHERE ${column(info, "t", "id")} = ${id} RETURNING ${returning(info, records)}`;
}

/**
 * A confined request (`RequestContext.confinedTo`: its path names the scope) writes only in that scope:
 * whatever an area's service works out, a record is never created in, or moved to, another one. The
 * group plugin inputs take no scope at all; this is the kit's guarantee behind them.
 */
function assertStaysConfined(ctx: RequestContext, records: RecordsDeclaration, values: Record<string, unknown>): void {
  const confined = ctx.confinedTo;
  if (!confined || !records.scoped) return;
  const { scope, scopeId } = values as { scope?: string; scopeId?: number };
  if ((scope !== undefined && scope !== confined.scope) || (scopeId !== undefined && scopeId !== confined.scopeId)) {
    throw badInput("scope", `cannot move a record out of the ${confined.scope} its path names`);
  }
}

/** `DELETE` of the row `id`. */
export function deleteStatement(ctx: RequestContext, records: RecordsDeclaration, id: number): Prisma.Sql {
  const info = modelInfo(ctx.db, records.model);
  return Prisma.sql`DELETE FROM ${table(info, "t")} WHERE ${column(info, "t", "id")} = ${id}`;
}

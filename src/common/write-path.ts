import { Prisma } from "../generated/prisma/client.js";
import { isConnectionLost, sqlClientOf, type SqlClient } from "../db/sql.js";
import { ApiError, forbidden, notFound } from "./errors.js";
import type { EventType } from "./events.js";
import { outboxWritten } from "./outbox.js";
import { columnValues, type AnyFields } from "./fields.js";
import { changesNothing } from "./validation.js";
import type { RecordsDeclaration } from "./records.js";
import { answeredCreates } from "./record-reads.js";
import { column, modelInfo, table } from "./model.js";
import { confinementSql, managesSql, visibleSql } from "./visibility.js";
import { createdAnswer, decodeScalars, maskedVersion, readsOwnCreation, rowsStatement, type Selection } from "./row-reading.js";
import { recordScopeHeldSql } from "./scope-kinds.js";
import { scopeWriteCheck, type ScopeRule } from "./scopes.js";
import { contextWith, sqlOf, type RequestContext } from "./context.js";
import { outcomeUnknown, raisedRefusal } from "./database-errors.js";
import type { WrittenRecords } from "./written-records.js";
import { eventStatement, writerOf } from "./write-events.js";
import { deleteStatement, returning, updateStatement, writtenScalars } from "./write-statements.js";
import { claimKey, claimStatement, idempotencyConflict } from "./key-claims.js";

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

type Row = Record<string, unknown> & { id: number };

/** A locked row with what the caller may do with it, in the statement that locked it. */
type Locked<R> = R & { __visible: boolean; __manages: boolean; __version: string };

/** Runs `work` in the request's write transaction: the one already open (a write calling another), or a new one. */
export async function inWriteTransaction<T>(ctx: RequestContext, work: (tx: RequestContext & { tx: SqlClient }) => Promise<T>): Promise<T> {
  if (ctx.tx) return work(ctx as RequestContext & { tx: SqlClient });
  const result = await sqlClientOf(ctx.db).transaction((client) => work(contextWith(ctx, { tx: client })));
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
 * Deletes every record of one scope (a group's, when the group goes: src/common/scope-content.ts) inside the open
 * write transaction, each with its own deleted event: ONE statement however many there are (the DELETE
 * locks them all as it goes, and the events are read from the rows it returns), so a group of 10,000 pages
 * costs one round trip, not three per page. The caller has authorized the whole removal (the group's
 * managers and administrators delete a group and all in it). Answers how many.
 */
export const deleteScopeRecords = (tx: RequestContext, target: WrittenRecords, scope: { scope: string; scopeId: number }, event: EventType): Promise<number> =>
  deleteRecordsWhere(tx, target, { scope: scope.scope, scopeId: scope.scopeId }, event);

/**
 * Deletes every record whose fields hold these values (a category's posts: `{ categoryId }`; a list: any of them), as
 * `deleteScopeRecords` does: each with its own deleted event, in ONE statement, authorized by the caller.
 */
export async function deleteRecordsWhere(tx: RequestContext, target: WrittenRecords, where: Record<string, string | number | number[]>, event: EventType): Promise<number> {
  const info = modelInfo(tx.db, target.records.model);
  // A list: any of its values (a deleted offering's units' asset groups).
  const conditions = Object.entries(where).map(([field, value]) =>
    Array.isArray(value) ? Prisma.sql`${column(info, "t", field)} = ANY(${value}::int[])` : Prisma.sql`${column(info, "t", field)} = ${value}`,
  );
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

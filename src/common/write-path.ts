import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf, utcTimestamp, type SqlClient } from "../db/sql.js";
import { ApiError, conflict, forbidden, notFound } from "./errors.js";
import { appendEvents, type DomainEvent, type EventType } from "./events.js";
import { column, modelInfo, rowsStatement, table, visibleSql, type ModelInfo, type RecordsDeclaration } from "./records.js";
import { managesSql } from "./scopes.js";
import type { RequestContext } from "./context.js";
import { IDEMPOTENCY_KEY_HOURS } from "../http/write-conditions.js";

/**
 * The one write path (docs/adding-an-area.md, "Writes"). Every create, update, delete and named
 * transition of every area runs through `createRecord` or `changeRecord`, which in ONE transaction:
 * - lock the row it changes (`SELECT … FOR UPDATE`) and authorize on that locked row, or insert the new one;
 * - run the area's statements (through `tx`, plain SQL: no Prisma inside, see SqlClient.transaction);
 * - append the domain event to the outbox;
 * - claim the request's Idempotency-Key and check its If-Match.
 * A refused or failed write throws, and the transaction rolls back: neither the change nor its event is left.
 * The kit's reads (findVisible, isVisible) run in the same transaction through `sqlOf(ctx)`.
 */

/** What the write path needs to know of an area's records, besides their records declaration. */
export interface WrittenRecords {
  area: string;
  records: RecordsDeclaration;
  /** Fields that name a record (title, pagename): copied into every event's payload. Never bodies. */
  names: readonly string[];
  /** `Wiki page 7 not found.` */
  notFound(id: number): string;
  /** Why a caller who may see a record may not change it (403). */
  forbidden: string;
  /** A boolean field that hides the record's author (anonymous posts): events then name no actor. */
  anonymous?: string;
}

/** Declares an area's written records (src/<area>/service.ts). */
export const writtenRecords = (declaration: WrittenRecords): WrittenRecords => declaration;

type Row = Record<string, unknown> & { id: number };

/** A locked row with what the caller may do with it, in the statement that locked it. */
type Locked<R> = R & { __visible: boolean; __manages: boolean; __version: string };

/** Runs `work` in the request's write transaction: the one already open (a write calling another), or a new one. */
export async function inWriteTransaction<T>(ctx: RequestContext, work: (tx: RequestContext & { tx: SqlClient }) => Promise<T>): Promise<T> {
  if (ctx.tx) return work(ctx as RequestContext & { tx: SqlClient });
  return sqlClientOf(ctx.db).transaction((client) => work(Object.assign(Object.create(ctx) as RequestContext, { tx: client })));
}

/** The record's version for If-Match and ETag: its row's xmin, which every update of the row changes. */
export const recordEtag = (version: string) => `"${version}"`;

/**
 * Creates one record: `insert` runs the statements (its first write must be the record's INSERT, which
 * gives the transaction its id; see src/common/outbox.ts on order per record) and answers the new row
 * with every scalar. Authorization (may the caller write in this scope) is the service's, before.
 */
export async function createRecord<R extends Row>(
  ctx: RequestContext,
  target: WrittenRecords,
  options: { event: EventType; insert(tx: RequestContext & { tx: SqlClient }): Promise<R> },
): Promise<R> {
  return inWriteTransaction(ctx, async (tx) => {
    const row = await options.insert(tx);
    const info = modelInfo(ctx.db, target.records.model);
    const changed = info.scalars.filter((field) => !target.records.searchOnly?.includes(field.name) && field.name !== "id").map((field) => field.name);
    await finishWrite(tx, target, { event: options.event, row, changed });
    return row;
  });
}

/** What a change did: the row after it (null: deleted) and the fields it changed (none: no event). */
export interface Change<R> {
  row: R | null;
  changed?: string[];
}

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
    change(tx: RequestContext & { tx: SqlClient }, locked: R): Promise<Change<R>>;
  },
): Promise<R | null> {
  return inWriteTransaction(ctx, async (tx) => {
    const locked = await lockRecord<R>(tx, target, id);
    if (!locked) throw notFound(target.notFound(id));
    if (options.authorize) options.authorize(locked);
    else if (!locked.__manages) throw locked.__visible ? forbidden(target.forbidden) : notFound(target.notFound(id));
    if (ctx.ifMatch && !ctx.ifMatch.some((tag) => tag === "*" || tag === recordEtag(locked.__version))) {
      throw new ApiError(412, `The record has changed since the If-Match version was read (now ${recordEtag(locked.__version)}): read it again.`);
    }
    const { __visible: _visible, __manages: _manages, __version: _version, ...before } = locked;
    const change = await options.change(tx, before as unknown as R);
    const after = change.row;
    const info = modelInfo(ctx.db, target.records.model);
    const changed = change.changed ?? (after ? changedFields(info, target.records, before, after) : []);
    if (after === null || changed.length) await finishWrite(tx, target, { event: options.event, row: after ?? (before as unknown as R), changed });
    return after;
  });
}

/** The row, locked, with whether the caller may see it and may manage it, and its version. */
async function lockRecord<R>(ctx: RequestContext, target: WrittenRecords, id: number): Promise<Locked<R> | null> {
  const info = modelInfo(ctx.db, target.records.model);
  const statement = rowsStatement<Locked<R>>(ctx.db, target.records, undefined, {
    where: Prisma.sql`${column(info, "t", "id")} = ${id}`,
    extra: Prisma.sql`${visibleSql(ctx.db, target.records, ctx.viewer)} AS "__visible", ${managesSql(info, target.records, "t", ctx.viewer)} AS "__manages", t.xmin::text AS "__version"`,
    lock: true,
  });
  const [row] = await statement.finish(await ctx.tx!.query(statement.sql));
  return row ?? null;
}

/** The scalar fields whose value differs between two versions of a row (the updated-at stamp aside). */
function changedFields(info: ModelInfo, records: RecordsDeclaration, before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const same = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : JSON.stringify(a) === JSON.stringify(b));
  return info.scalars
    .filter((field) => !field.isUpdatedAt && !records.searchOnly?.includes(field.name) && !same(before[field.name], after[field.name]))
    .map((field) => field.name);
}

/** The event, then the Idempotency-Key: both in the write's transaction. */
async function finishWrite<R extends Row>(tx: RequestContext & { tx: SqlClient }, target: WrittenRecords, write: { event: EventType; row: R; changed: string[] }) {
  await appendEvents(tx.tx, [eventOf(tx, target, write)]);
  const claim = tx.idempotency;
  if (claim && !claim.claimed) {
    const user = tx.viewer.user!;
    // A key past its day is taken over; a live one claimed by a concurrent request that committed first is not.
    const [claimed] = await tx.tx.query(Prisma.sql`
      INSERT INTO idempotency_keys AS k (user_id, key, fingerprint, created) VALUES (${user.id}, ${claim.key}, ${claim.fingerprint}, (now() AT TIME ZONE 'UTC'))
      ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = NULL, answer = NULL, created = excluded.created
       WHERE k.created <= excluded.created - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS})
      RETURNING 1`);
    const taken = !claimed;
    // A concurrent request with the same key committed first: this one must not write a second record.
    if (taken) throw conflict("Idempotency-Key", "A request with this Idempotency-Key was made while this one ran; retry to get its answer.");
    claim.claimed = true;
  }
}

/** The domain event of a write, normalised across areas: visibility, publication, anonymity, names. */
function eventOf<R extends Row>(ctx: RequestContext, target: WrittenRecords, write: { event: EventType; row: R; changed: string[] }): DomainEvent {
  const { records } = target;
  const row = write.row as Record<string, unknown>;
  const payload: DomainEvent["payload"] = { id: row.id as number };
  for (const name of target.names) payload[name] = (row[name] ?? null) as string | number | null;
  return {
    type: write.event,
    area: target.area,
    recordId: row.id as number,
    actorId: ctx.viewer.user?.id ?? null,
    anonymous: target.anonymous ? Boolean(row[target.anonymous]) : false,
    scope: records.scoped ? String(row.scope) : "site",
    scopeId: records.scoped ? Number(row.scopeId) : 0,
    visibility: records.access ? records.access.levelOf(Number(row.access)) : "public",
    published: row[records.published.field] === records.published.value,
    changed: write.changed,
    payload,
  };
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

const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')::timestamp(3)`;

/** The select list answering every scalar under its field name (as reads answer rows). */
function returning(info: ModelInfo, records: RecordsDeclaration): Prisma.Sql {
  return Prisma.raw(
    info.scalars
      .filter((field) => !records.searchOnly?.includes(field.name))
      .map((field) => `"${field.column}" AS "${field.name}"`)
      .join(", "),
  );
}

/**
 * `INSERT … RETURNING` every scalar: `values` by field name (undefined: the column's default); the
 * updated-at stamp and an absent `created` are the transaction's time.
 */
export function insertStatement(ctx: RequestContext, records: RecordsDeclaration, values: Record<string, unknown>): Prisma.Sql {
  const info = modelInfo(ctx.db, records.model);
  const given = Object.entries(values).filter(([, value]) => value !== undefined);
  for (const field of info.scalars) if ((field.isUpdatedAt || field.name === "created") && values[field.name] === undefined) given.push([field.name, NOW]);
  const columns = given.map(([field]) => Prisma.raw(`"${info.fields.get(field)!.column}"`));
  const params = given.map(([field, value]) => (value === NOW ? NOW : valueSql(info, field, value)));
  return Prisma.sql`INSERT INTO ${Prisma.raw(`"${info.table}"`)} (${Prisma.join(columns)}) VALUES (${Prisma.join(params)}) RETURNING ${returning(info, records)}`;
}

/** `UPDATE … RETURNING` every scalar of the row `id`: the fields given (undefined: unchanged), and the updated-at stamp. */
export function updateStatement(ctx: RequestContext, records: RecordsDeclaration, id: number, values: Record<string, unknown>): Prisma.Sql {
  const info = modelInfo(ctx.db, records.model);
  const sets = Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => Prisma.sql`${Prisma.raw(`"${info.fields.get(field)!.column}"`)} = ${valueSql(info, field, value)}`);
  for (const field of info.scalars) if (field.isUpdatedAt) sets.push(Prisma.sql`${Prisma.raw(`"${field.column}"`)} = ${NOW}`);
  return Prisma.sql`UPDATE ${table(info, "t")} SET ${Prisma.join(sets)} WHERE ${column(info, "t", "id")} = ${id} RETURNING ${returning(info, records)}`;
}

/** `DELETE` of the row `id`. */
export function deleteStatement(ctx: RequestContext, records: RecordsDeclaration, id: number): Prisma.Sql {
  const info = modelInfo(ctx.db, records.model);
  return Prisma.sql`DELETE FROM ${table(info, "t")} WHERE ${column(info, "t", "id")} = ${id}`;
}

import { Prisma } from "../generated/prisma/client.js";
import type { SqlClient } from "../db/sql.js";
import { audienceOf, type EventType } from "./events.js";
import { accessFieldOf, recordReadersSql, recordEventScope } from "./records.js";
import { column, modelInfo, table } from "./model.js";
import { ownRecordSql, publishedOver } from "./visibility.js";
import { scopeKindCount, secludedScopeSql } from "./scope-kinds.js";
import { eventVisibilitySql } from "./policy.js";
import type { RequestContext } from "./context.js";
import { hidesAuthorSql, type WrittenRecords } from "./written-records.js";
import { NOW, returning, writtenScalars } from "./write-statements.js";

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
export const writerOf = (ctx: RequestContext): EventWriter => ({ db: ctx.db, actorId: ctx.viewer.user?.id ?? null });

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

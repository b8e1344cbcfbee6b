import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { utcTimestampText, type SqlClient } from "../db/sql.js";
import { outboxWritten, type StoredEvent } from "../common/outbox.js";
import { registerOutboxConsumer } from "../events/dispatcher.js";
import { activityRevisionsOf, activitySourceOf, scopeAndActor, type Recipient } from "../common/activity-sources.js";
import { markForRevision, readableRecipients, reviseBacklog } from "./readers.js";
import { recipientsText } from "./service.js";
import { ACTIVITY_AREA } from "./area.js";
import { ACTIVITY_RECORDS } from "./records.js";
import { eventStatement } from "../common/write-events.js";
import { returningScalars } from "../common/write-statements.js";
import { recordScopeExistsSql, usersInRelationSql } from "../common/scope-kinds.js";

/**
 * The outbox consumer `activity` (docs/events.md, "Delivery"): every area's events of a registered source
 * (src/common/activity-sources.ts) become activity entries, in the dispatcher's transaction, once per event (the
 * entry's `source_event` is unique: a redelivered batch writes nothing twice), each with its own
 * `activity.activityEntryCreated` event (the feed subscription hears it). Activity's own events make no
 * entries. Of the recipients the source names (the entry's `candidates`), only those who may read the record
 * now are kept (`readableRecipients`), and an anonymous record's entry is anonymous. The entry then follows
 * its record (src/activity/readers.ts, `reviseEntries`): after the record's later events that can change who
 * may read it, its recipients, anonymity and scope are decided again, and it goes when the record goes.
 */
export const ACTIVITY_CONSUMER = registerOutboxConsumer({
  name: "activity",
  // Its entries' events wake the subscriptions and the other consumers once they have committed.
  committed(db) {
    if (wroteEntries.delete(db)) outboxWritten(db);
  },
  async handle(events, tx, db) {
    await writeEntries(events, tx, db);
    // Then the entries whose records changed are marked (an entry written above follows its record's later
    // change in the same batch), and decided again in bounded steps (`backlog`).
    const revisions = events.filter((event) => event.area !== "activity").flatMap((event) => activityRevisionsOf(event.type).map((revision) => revision.entries(event)));
    await markForRevision(tx, revisions.filter((condition): condition is Prisma.Sql => condition !== null));
  },
  // One step of the marked entries per drain, after its batch: a thread's 10^5 replies take many
  // transactions, each bounded, with the feed's new events going out between them.
  async backlog(tx, db) {
    const step = await reviseBacklog(db, tx);
    if (step.changed) wroteEntries.add(db);
    return step;
  },
});

/** The batch's events of a source type, each its entry (once: by event id). */
async function writeEntries(events: StoredEvent[], tx: SqlClient, db: PrismaClient): Promise<void> {
  const wanted = events.filter((event) => event.area !== "activity" && event.actorId !== null && activitySourceOf(event.type));
  if (!wanted.length) return;
  const done = new Set(
    (await tx.query<{ source: string }>(Prisma.sql`SELECT source_event::text AS source FROM activity WHERE source_event = ANY(${wanted.map((event) => event.id)}::bigint[])`)).map(
      (row) => row.source,
    ),
  );
  const fresh = wanted.filter((candidate) => !done.has(candidate.id));
  if (!fresh.length) return;
  const candidates = new Map<StoredEvent, Recipient[]>();
  for (const event of fresh) {
    const source = activitySourceOf(event.type)!;
    candidates.set(event, await (source.recipients ? source.recipients(event, tx) : scopeAndActor(event)));
  }
  const recipients = await readableRecipients(db, tx, candidates);
  await tx.query(entriesStatement(db, fresh, candidates, recipients));
  wroteEntries.add(db);
}

/** The databases a batch of this process wrote entries to, until it commits. */
const wroteEntries = new WeakSet<PrismaClient>();

/**
 * ONE statement for a batch's entries: each event's entry (in the batch's order), its recipients, and its own
 * created event (the feed subscription's; its actor is the source event's, the entry's author).
 */
function entriesStatement(db: PrismaClient, events: StoredEvent[], candidates: Map<StoredEvent, Recipient[]>, recipients: Map<StoredEvent, Recipient[]>): Prisma.Sql {
  const column = <T>(value: (event: StoredEvent) => T) => events.map(value);
  const sent = events.flatMap((event) => recipients.get(event)!.map((recipient) => ({ event: event.id, ...recipient })));
  return Prisma.sql`WITH created AS (
      INSERT INTO activity (scope, scope_id, action, alias, description, anonymous, parent, recipients, created, created_by, modified, source_event, source_area, source_record, candidates)
      SELECT e.scope, e.scope_id, e.action, '', e.description, e.anonymous, 0, e.recipients, e.created, e.created_by, e.created, e.source_event, e.area, e.record, e.candidates
        FROM unnest(${column((event) => event.scope)}::text[], ${column((event) => (event.scope === "site" ? 0 : event.scopeId))}::int[], ${column((event) => event.type)}::text[],
                    ${column((event) => activitySourceOf(event.type)!.describe(event))}::text[], ${column((event) => (event.anonymous ? 1 : 0))}::int[],
                    ${column((event) => recipientsText(recipients.get(event)!))}::text[], ${column((event) => utcTimestampText(event.occurredAt))}::timestamp(3)[],
                    ${column((event) => event.actorId)}::int[], ${column((event) => event.id)}::bigint[], ${column((event) => event.area)}::text[], ${column((event) => event.recordId)}::int[],
                    ${column((event) => recipientsText(candidates.get(event)!))}::text[])
             WITH ORDINALITY AS e(scope, scope_id, action, description, anonymous, recipients, created, created_by, source_event, area, record, candidates, position)
       -- The scope still exists (held as creates hold it): a group deleted since the events were read gets no entries.
       WHERE ${recordScopeExistsSql(Prisma.sql`e.scope`, Prisma.sql`e.scope_id`)}
       ORDER BY e.position
      ON CONFLICT (source_event) DO NOTHING RETURNING ${returningScalars({ db }, ACTIVITY_RECORDS)}),
    sent AS (INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
      SELECT created.id, r.scope, r.scope_id, created.created
        FROM unnest(${sent.map((row) => row.event)}::bigint[], ${sent.map((row) => row.scope)}::text[], ${sent.map((row) => row.scopeId)}::int[]) AS r(source_event, scope, scope_id)
        JOIN created ON created."sourceEvent" = r.source_event)
    ${eventStatement({ db, actorId: { field: "createdById" } }, ACTIVITY_AREA.writesOf, ACTIVITY_AREA.eventsNamed.activityEntryCreated, Prisma.sql`created`, [])}`;
}

/** The managers (now) of the event's scope, as its kind declares them, and the person the event is about: a group's membership requests and invitations. */
export async function scopeManagersAndSubject(event: StoredEvent, tx: SqlClient): Promise<Recipient[]> {
  const managersOf = usersInRelationSql(event.scope, event.scopeId, "managers");
  const managers = managersOf ? await tx.query<{ id: number }>(Prisma.sql`SELECT held.id FROM (${managersOf}) AS held (id)`) : [];
  return [
    ...managers.map((row) => ({ scope: "member", scopeId: row.id })),
    ...(event.subjectId ? [{ scope: "member", scopeId: event.subjectId }] : []),
    ...(event.actorId ? [{ scope: "member", scopeId: event.actorId }] : []),
  ];
}

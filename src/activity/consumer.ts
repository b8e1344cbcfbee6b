import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { utcTimestampText, type SqlClient } from "../db/sql.js";
import type { Viewer } from "../common/context.js";
import { anonymous } from "../common/context.js";
import { outboxWritten, type StoredEvent } from "../common/outbox.js";
import { registerOutboxConsumer } from "../events/dispatcher.js";
import { readableBy, viewerKey } from "../events/subscriptions.js";
import { activitySourceOf, scopeAndActor } from "./sources.js";
import { ACTIVITY_EVENTS, ACTIVITY_RECORDS, ACTIVITY_WRITES, recipientsText, type Recipient } from "./service.js";
import { eventStatement, returningScalars } from "../common/write-path.js";

/**
 * The outbox consumer `activity` (docs/events.md, "Delivery"): every area's events of a registered source
 * (src/activity/sources.ts) become activity entries, in the dispatcher's transaction, once per event (the
 * entry's `source_event` is unique: a redelivered batch writes nothing twice), each with its own
 * `activity.activityEntryCreated` event (the feed subscription hears it). Activity's own events make no entries. Recipients are kept only when they may read the record now, as a read decides
 * (`readableBy`): the site (`site:0`) only when anonymous callers may; a member when they may; a group
 * when the record is its own published record, or the group itself (its members read its private records).
 * An anonymous record's entry is anonymous (its author is shown to nobody but them and administrators).
 */
export const ACTIVITY_CONSUMER = registerOutboxConsumer({
  name: "activity",
  // Its entries' events wake the subscriptions and the other consumers once they have committed.
  committed(db) {
    if (wroteEntries.delete(db)) outboxWritten(db);
  },
  async handle(events, tx, db) {
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
    await tx.query(entriesStatement(db, fresh, recipients));
    wroteEntries.add(db);
  },
});

/** The databases a batch of this process wrote entries to, until it commits. */
const wroteEntries = new WeakSet<PrismaClient>();

/**
 * ONE statement for a batch's entries: each event's entry (in the batch's order), its recipients, and its own
 * created event (the feed subscription's; its actor is the source event's, the entry's author).
 */
function entriesStatement(db: PrismaClient, events: StoredEvent[], recipients: Map<StoredEvent, Recipient[]>): Prisma.Sql {
  const column = <T>(value: (event: StoredEvent) => T) => events.map(value);
  const sent = events.flatMap((event) => recipients.get(event)!.map((recipient) => ({ event: event.id, ...recipient })));
  return Prisma.sql`WITH created AS (
      INSERT INTO activity (scope, scope_id, action, alias, description, anonymous, parent, recipients, created, created_by, modified, source_event)
      SELECT e.scope, e.scope_id, e.action, '', e.description, e.anonymous, 0, e.recipients, e.created, e.created_by, e.created, e.source_event
        FROM unnest(${column((event) => event.scope)}::text[], ${column((event) => (event.scope === "site" ? 0 : event.scopeId))}::int[], ${column((event) => event.type)}::text[],
                    ${column((event) => activitySourceOf(event.type)!.describe(event))}::text[], ${column((event) => (event.anonymous ? 1 : 0))}::int[],
                    ${column((event) => recipientsText(recipients.get(event)!))}::text[], ${column((event) => utcTimestampText(event.occurredAt))}::timestamp(3)[],
                    ${column((event) => event.actorId)}::int[], ${column((event) => event.id)}::bigint[])
             WITH ORDINALITY AS e(scope, scope_id, action, description, anonymous, recipients, created, created_by, source_event, position)
       ORDER BY e.position
      ON CONFLICT (source_event) DO NOTHING RETURNING ${returningScalars({ db }, ACTIVITY_RECORDS)}),
    sent AS (INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
      SELECT created.id, r.scope, r.scope_id, created.created
        FROM unnest(${sent.map((row) => row.event)}::bigint[], ${sent.map((row) => row.scope)}::text[], ${sent.map((row) => row.scopeId)}::int[]) AS r(source_event, scope, scope_id)
        JOIN created ON created."sourceEvent" = r.source_event)
    ${eventStatement({ db, actorId: { field: "createdById" } }, ACTIVITY_WRITES, ACTIVITY_EVENTS.activityEntryCreated, Prisma.sql`created`, [])}`;
}

/**
 * Per event, the candidates who may read its record now (src/events/subscriptions.ts, `readableBy`): asked
 * for the whole batch at once, every candidate member with every event.
 */
async function readableRecipients(db: PrismaClient, tx: SqlClient, candidates: Map<StoredEvent, Recipient[]>): Promise<Map<StoredEvent, Recipient[]>> {
  const unique = new Map([...candidates].map(([event, list]) => [event, [...new Map(list.map((r) => [`${r.scope}:${r.scopeId}`, r])).values()]]));
  const memberIds = [...new Set([...unique.values()].flat().filter((r) => r.scope === "member").map((r) => r.scopeId))];
  const users = memberIds.length
    ? await tx.query<{ id: number; username: string; isAdmin: boolean }>(Prisma.sql`SELECT id, username, is_admin AS "isAdmin" FROM users WHERE id = ANY(${memberIds}::int[])`)
    : [];
  const viewers: Viewer[] = [anonymous, ...users.map((user): Viewer => ({ user, via: "token" }))];
  const readable = await readableBy(db, viewers, [...unique.keys()], tx);
  const reads = (viewer: Viewer, event: StoredEvent) => readable.get(viewerKey(viewer))?.has(event.id) ?? false;
  const byId = new Map(users.map((user) => [user.id, { user, via: "token" } as Viewer]));
  const kept = new Map<StoredEvent, Recipient[]>();
  for (const [event, list] of unique) {
    kept.set(
      event,
      list.filter((recipient) => {
        if (recipient.scope === "site") return reads(anonymous, event);
        if (recipient.scope === "member") {
          const viewer = byId.get(recipient.scopeId);
          return viewer !== undefined && reads(viewer, event);
        }
        // A group's members read its published records and the group itself (its private ones too, by the
        // scope kind's rule); a record of another scope is theirs only if anonymous callers may read it.
        if (recipient.scope === "group") return (event.scope === "group" && event.scopeId === recipient.scopeId && event.published) || reads(anonymous, event);
        return false;
      }),
    );
  }
  return kept;
}

/** The group's managers (now) and the person the event is about: membership requests and invitations. */
export async function groupManagersAndSubject(event: StoredEvent, tx: SqlClient): Promise<Recipient[]> {
  const managers = await tx.query<{ id: number }>(Prisma.sql`SELECT user_id AS id FROM group_members WHERE group_id = ${event.scopeId} AND status = 'member' AND manager`);
  return [
    ...managers.map((row) => ({ scope: "member", scopeId: row.id })),
    ...(event.subjectId ? [{ scope: "member", scopeId: event.subjectId }] : []),
    ...(event.actorId ? [{ scope: "member", scopeId: event.actorId }] : []),
  ];
}

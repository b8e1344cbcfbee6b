import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import type { SqlClient } from "../db/sql.js";
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
    for (const event of wanted.filter((candidate) => !done.has(candidate.id))) {
      const source = activitySourceOf(event.type)!;
      const candidates = await (source.recipients ? source.recipients(event, tx) : scopeAndActor(event));
      const recipients = await readableRecipients(db, tx, event, candidates);
      // The entry, its recipients and its own created event (the feed subscription's) in one statement.
      await tx.query(Prisma.sql`WITH created AS (
          INSERT INTO activity (scope, scope_id, action, alias, description, anonymous, parent, recipients, created, created_by, modified, source_event)
          VALUES (${event.scope}, ${event.scope === "site" ? 0 : event.scopeId}, ${event.type}, '', ${source.describe(event)}, ${event.anonymous ? 1 : 0}, 0,
                  ${recipientsText(recipients)}, ${event.occurredAt}, ${event.actorId}, ${event.occurredAt}, ${event.id}::bigint)
          ON CONFLICT (source_event) DO NOTHING RETURNING ${returningScalars({ db }, ACTIVITY_RECORDS)}),
        sent AS (INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
          SELECT created.id, v.scope, v.scope_id, created.created FROM created,
            (SELECT * FROM unnest(${recipients.map((r) => r.scope)}::text[], ${recipients.map((r) => r.scopeId)}::int[])) AS v(scope, scope_id))
        ${eventStatement({ db, actorId: event.actorId }, ACTIVITY_WRITES, ACTIVITY_EVENTS.activityEntryCreated, Prisma.sql`created`, [])}`);
      wroteEntries.add(db);
    }
  },
});

/** The databases a batch of this process wrote entries to, until it commits. */
const wroteEntries = new WeakSet<PrismaClient>();

/** The candidates who may read the event's record now (src/events/subscriptions.ts, `readableBy`). */
async function readableRecipients(db: PrismaClient, tx: SqlClient, event: StoredEvent, candidates: Recipient[]): Promise<Recipient[]> {
  const unique = [...new Map(candidates.map((r) => [`${r.scope}:${r.scopeId}`, r])).values()];
  const memberIds = unique.filter((r) => r.scope === "member").map((r) => r.scopeId);
  const users = memberIds.length
    ? await tx.query<{ id: number; username: string; isAdmin: boolean }>(Prisma.sql`SELECT id, username, is_admin AS "isAdmin" FROM users WHERE id = ANY(${memberIds}::int[])`)
    : [];
  const viewers: Viewer[] = [anonymous, ...users.map((user): Viewer => ({ user, via: "token" }))];
  const readable = await readableBy(db, viewers, [event], tx);
  const reads = (viewer: Viewer) => readable.get(viewerKey(viewer))?.has(event.id) ?? false;
  const byId = new Map(users.map((user) => [user.id, { user, via: "token" } as Viewer]));
  const kept: Recipient[] = [];
  for (const recipient of unique) {
    if (recipient.scope === "site") {
      if (reads(anonymous)) kept.push(recipient);
    } else if (recipient.scope === "member") {
      const viewer = byId.get(recipient.scopeId);
      if (viewer && reads(viewer)) kept.push(recipient);
    } else if (recipient.scope === "group") {
      // A group's members read its published records and the group itself (its private ones too, by the
      // scope kind's rule); a record of another scope is theirs only if anonymous callers may read it.
      const own = event.scope === "group" && event.scopeId === recipient.scopeId && event.published;
      if (own || reads(anonymous)) kept.push(recipient);
    }
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

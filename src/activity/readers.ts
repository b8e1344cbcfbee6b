import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import type { SqlClient } from "../db/sql.js";
import type { Viewer } from "../common/context.js";
import { anonymous } from "../common/context.js";
import type { StoredEvent } from "../common/outbox.js";
import { column, modelInfo, table } from "../common/model.js";
import { publishedSql } from "../common/visibility.js";
import { recordEventScope } from "../common/records.js";
import { eventStatement } from "../common/write-events.js";
import { NOW, returningScalars } from "../common/write-statements.js";
import { hidesAuthorSql, writtenRecordsOf } from "../common/written-records.js";
import { readableBy, viewerKey } from "../events/subscriptions.js";
import { followedAreasList } from "../common/activity-sources.js";
import { scopeKindIfRegistered } from "../common/scope-kinds.js";
import { recipientKey, recipientsText, storedRecipients } from "./service.js";
import type { Recipient } from "../common/activity-sources.js";
import { ACTIVITY_AREA } from "./area.js";
import { ACTIVITY_RECORDS } from "./records.js";

/**
 * Per event, the candidates who may read its record now (src/events/subscriptions.ts, `readableBy`): asked
 * for the whole batch at once, every candidate member with every event. A member is asked as a member, never
 * as an administrator: administrators read every entry anyway, and one no longer an administrator must not
 * keep what only that let them read (a demotion raises no event to decide entries again). The site (`site:0`) is kept only
 * when anonymous callers may read the record; a member when they may; a scope of a kind with members (a group)
 * when every member of it may: the record is the scope's own published record (its members read every level of
 * it, by the visibility rule), or a signed-in user who belongs nowhere reads it (every member is at least that).
 */
export async function readableRecipients(db: PrismaClient, tx: SqlClient, candidates: Map<StoredEvent, Recipient[]>): Promise<Map<StoredEvent, Recipient[]>> {
  const unique = new Map([...candidates].map(([event, list]) => [event, uniqueRecipients(list)]));
  const memberIds = [...new Set([...unique.values()].flat().filter((r) => r.scope === "member").map((r) => r.scopeId))];
  const users = memberIds.length
    ? await tx.query<{ id: number; username: string; isAdmin: boolean }>(Prisma.sql`SELECT id, username, FALSE AS "isAdmin" FROM users WHERE id = ANY(${memberIds}::int[])`)
    : [];
  const viewers: Viewer[] = [anonymous, REGISTERED_NOBODY, ...users.map((user): Viewer => ({ user, via: "token" }))];
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
        if (!scopeKindIfRegistered(recipient.scope)?.members) return false;
        return (event.scope === recipient.scope && event.scopeId === recipient.scopeId && event.published) || reads(REGISTERED_NOBODY, event);
      }),
    );
  }
  return kept;
}

/** A signed-in user who created nothing, belongs nowhere and manages nothing (no account has id -1): what every member of any scope may read at least. */
const REGISTERED_NOBODY: Viewer = { user: { id: -1, username: "", isAdmin: false }, via: "token" };

/** Each recipient once, in the order first named. */
export const uniqueRecipients = (list: Recipient[]): Recipient[] => [...new Map(list.map((r) => [recipientKey(r), r])).values()];

/** A record's facts an entry follows: its scope, whether readers see it published now, whether it hides its author. */
interface RecordFacts {
  id: number;
  scope: string;
  scopeId: number;
  published: boolean;
  anonymous: boolean;
}

/** The facts of an area's records that still exist (one statement). */
async function recordFacts(db: PrismaClient, tx: SqlClient, area: string, ids: number[]): Promise<Map<number, RecordFacts>> {
  const written = writtenRecordsOf(area)!;
  const { records } = written;
  const info = modelInfo(db, records.model);
  const { scope, scopeId } = recordEventScope(records, (name) => column(info, "t", name));
  const published = records.audience ? Prisma.sql`TRUE` : publishedSql(info, records, "t", new Date());
  const hidden = hidesAuthorSql(written, (field) => column(info, "t", field)) ?? Prisma.sql`FALSE`;
  const rows = await tx.query<RecordFacts>(
    Prisma.sql`SELECT ${column(info, "t", "id")} AS id, ${scope} AS scope, ${scopeId}::int AS "scopeId", (${published}) AS published, (${hidden}) AS anonymous
                 FROM ${table(info, "t")} WHERE ${column(info, "t", "id")} = ANY(${ids}::int[])`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

interface FollowingEntry {
  id: number;
  area: string;
  record: number;
  candidates: string;
  createdById: number;
  anonymous: number;
  recipients: string;
  scope: string;
  scopeId: number;
}

/** Entries decided again per step (per transaction): a step's `readableBy` asks each candidate about each record. */
export const REVISE_STEP = 200;
/** And at most this many candidates in a step (a reply's entry may name 2,000: its participants and linked users); one entry at least. */
const REVISE_STEP_CANDIDATES = 20_000;

/**
 * Marks for deciding again the entries the consumer wrote for records (`conditions` over `activity a`, ORed):
 * one statement however many (a thread's 10^5 replies); `reviseBacklog` takes them in steps.
 */
export async function markForRevision(tx: SqlClient, conditions: Prisma.Sql[]): Promise<void> {
  if (!conditions.length) return;
  await tx.query(Prisma.sql`UPDATE activity a SET revise = TRUE
    WHERE a.source_record IS NOT NULL AND a.source_area = ANY(${followedAreasList()}::text[]) AND NOT a.revise AND (${Prisma.join(conditions, " OR ")})`);
}

/**
 * Decides again up to REVISE_STEP marked entries, oldest first, as their records are now (docs/decisions.md,
 * "Activity"): an entry goes to those of its candidates who may read the record now, names no author when the
 * record hides it, takes the record's scope, and goes with the record when the record is gone. Each changed
 * entry appends `activityEntryUpdated` (or `activityEntryDeleted`), as the system (no actor). Answers whether
 * it took a step, whether marked entries are left, and how many entries changed.
 */
export async function reviseBacklog(db: PrismaClient, tx: SqlClient): Promise<{ worked: boolean; more: boolean; changed: number }> {
  const marked = await tx.query<FollowingEntry>(Prisma.sql`
    SELECT a.id, a.source_area AS area, a.source_record AS record, coalesce(a.candidates, a.recipients) AS candidates, a.created_by AS "createdById",
           a.anonymous, a.recipients, a.scope, a.scope_id AS "scopeId"
      FROM activity a
     WHERE a.revise AND a.source_area = ANY(${followedAreasList()}::text[])
     ORDER BY a.id LIMIT ${REVISE_STEP + 1} FOR UPDATE`);
  if (!marked.length) return { worked: false, more: false, changed: 0 };
  let candidates = 0;
  const following = marked.slice(0, REVISE_STEP).filter((entry, index) => (candidates += entry.candidates.split(",").length) <= REVISE_STEP_CANDIDATES || index === 0);
  await tx.query(Prisma.sql`UPDATE activity SET revise = FALSE WHERE id = ANY(${following.map((entry) => entry.id)}::int[])`);
  const changed = await reviseEntries(db, tx, following);
  return { worked: true, more: marked.length > following.length, changed };
}

/** Decides the entries again (see `reviseBacklog`); answers how many changed. */
async function reviseEntries(db: PrismaClient, tx: SqlClient, following: FollowingEntry[]): Promise<number> {
  const facts = new Map<string, Map<number, RecordFacts>>();
  for (const area of new Set(following.map((entry) => entry.area))) {
    facts.set(area, await recordFacts(db, tx, area, [...new Set(following.filter((entry) => entry.area === area).map((entry) => entry.record))]));
  }
  const gone: number[] = [];
  const asEvents = new Map<StoredEvent, Recipient[]>();
  const entryOf = new Map<StoredEvent, FollowingEntry & { now: RecordFacts }>();
  for (const entry of following) {
    const now = facts.get(entry.area)!.get(entry.record);
    if (!now) {
      gone.push(entry.id);
      continue;
    }
    // The entry as an event about its record now (what `readableBy` asks): its author is the actor.
    const event: StoredEvent = {
      id: String(entry.id),
      xid: "0",
      type: "activity.revision",
      area: entry.area,
      recordId: entry.record,
      actorId: entry.createdById,
      anonymous: now.anonymous,
      scope: now.scope,
      scopeId: now.scopeId,
      visibility: "private",
      published: now.published,
      audience: "readers",
      subjectId: null,
      changed: [],
      payload: {},
      occurredAt: new Date(),
    };
    asEvents.set(event, storedRecipients(entry.candidates));
    entryOf.set(event, { ...entry, now });
  }
  const readable = await readableRecipients(db, tx, asEvents);
  const changes: { id: number; recipients: string; anonymous: number; scope: string; scopeId: number; changed: string[]; added: Recipient[]; removed: Recipient[] }[] = [];
  for (const [event, kept] of readable) {
    const entry = entryOf.get(event)!;
    const recipients = recipientsText(kept);
    const hidden = entry.now.anonymous ? 1 : 0;
    const scopeId = entry.now.scope === "site" ? 0 : entry.now.scopeId;
    const changed = [
      ...(recipients !== entry.recipients ? ["recipients"] : []),
      ...(hidden !== entry.anonymous ? ["anonymous"] : []),
      ...(entry.now.scope !== entry.scope ? ["scope"] : []),
      ...(scopeId !== entry.scopeId ? ["scopeId"] : []),
    ];
    if (!changed.length) continue;
    const stored = storedRecipients(entry.recipients);
    const before = new Set(stored.map(recipientKey));
    const after = new Set(kept.map(recipientKey));
    changes.push({
      id: entry.id,
      recipients,
      anonymous: hidden,
      scope: entry.now.scope,
      scopeId,
      changed,
      added: kept.filter((r) => !before.has(recipientKey(r))),
      removed: stored.filter((r) => !after.has(recipientKey(r))),
    });
  }
  if (gone.length) await tx.query(goneStatement(db, gone));
  if (changes.length) await tx.query(changesStatement(db, changes));
  return gone.length + changes.length;
}

const SYSTEM = (db: PrismaClient) => ({ db, actorId: null });

/** The entries of records that are gone, with their deleted events: one statement. */
function goneStatement(db: PrismaClient, ids: number[]): Prisma.Sql {
  return Prisma.sql`WITH gone AS (DELETE FROM activity WHERE id = ANY(${ids}::int[]) RETURNING ${returningScalars({ db }, ACTIVITY_RECORDS)})
    ${eventStatement(SYSTEM(db), ACTIVITY_AREA.writesOf, ACTIVITY_AREA.eventsNamed.activityEntryDeleted, Prisma.sql`gone`, [])}`;
}

/**
 * The entries' new recipients (the rows that left, then those that came), anonymity and scope, each with its
 * updated event naming what changed: one statement.
 */
function changesStatement(
  db: PrismaClient,
  changes: { id: number; recipients: string; anonymous: number; scope: string; scopeId: number; changed: string[]; added: Recipient[]; removed: Recipient[] }[],
): Prisma.Sql {
  const pairs = (pick: (change: (typeof changes)[number]) => Recipient[]) => changes.flatMap((change) => pick(change).map((r) => ({ id: change.id, ...r })));
  const removed = pairs((change) => change.removed);
  const added = pairs((change) => change.added);
  return Prisma.sql`WITH c AS (
      SELECT * FROM unnest(${changes.map((c) => c.id)}::int[], ${changes.map((c) => c.recipients)}::text[], ${changes.map((c) => c.anonymous)}::int[],
                           ${changes.map((c) => c.scope)}::text[], ${changes.map((c) => c.scopeId)}::int[], ${changes.map((c) => c.changed.join(","))}::text[])
               AS c(entry_id, new_recipients, new_anonymous, new_scope, new_scope_id, changed_fields)),
    updated AS (UPDATE activity SET recipients = c.new_recipients, anonymous = c.new_anonymous, scope = c.new_scope, scope_id = c.new_scope_id, modified = ${NOW}
                  FROM c WHERE activity.id = c.entry_id RETURNING ${returningScalars({ db }, ACTIVITY_RECORDS)}, c.changed_fields),
    left_out AS (DELETE FROM activity_recipients r USING unnest(${removed.map((r) => r.id)}::int[], ${removed.map((r) => r.scope)}::text[], ${removed.map((r) => r.scopeId)}::int[]) AS x(entry_id, scope, scope_id)
                  WHERE r.entry_id = x.entry_id AND r.scope = x.scope AND r.scope_id = x.scope_id),
    came AS (INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
               SELECT x.entry_id, x.scope, x.scope_id, u.created
                 FROM unnest(${added.map((r) => r.id)}::int[], ${added.map((r) => r.scope)}::text[], ${added.map((r) => r.scopeId)}::int[]) AS x(entry_id, scope, scope_id)
                 JOIN updated u ON u.id = x.entry_id)
    ${eventStatement(SYSTEM(db), ACTIVITY_AREA.writesOf, ACTIVITY_AREA.eventsNamed.activityEntryUpdated, Prisma.sql`updated`, Prisma.sql`string_to_array(changed_fields, ',')`)}`;
}

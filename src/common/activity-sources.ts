import { Prisma } from "../generated/prisma/client.js";
import { readershipFieldsOf } from "./policy.js";
import { writtenRecordsOf } from "./written-records.js";
import type { SqlClient } from "../db/sql.js";
import type { StoredEvent } from "./outbox.js";

/**
 * What an area's event becomes in the activity feed: an area declared as one says it in its declaration
 * (`activity`, src/common/area.ts; the forum's recipients and followers in src/forum/activity.ts), others
 * register it in their own folder (groups: src/groups/activity.ts). The consumer
 * (src/activity/consumer.ts) writes one entry per event of these types, once (by event id), to the
 * recipients the source names, keeping only those who may read the record now (`readableBy`).
 */
export interface ActivitySource {
  /** The event types (docs/events.md) this source turns into entries. */
  types: readonly string[];
  /** The entry's description (never the actor's name: an anonymous record's entry must not tell it). */
  describe(event: StoredEvent): string;
  /**
   * Who is sent the entry. Absent: the record's scope (the site, its group, the member) and the actor.
   * Membership requests and invitations: the group's managers and the person concerned (`scopeManagersAndSubject`).
   */
  recipients?(event: StoredEvent, tx: SqlClient): Promise<Recipient[]> | Recipient[];
  /**
   * The record's own later events (its updates, its deletion, its publishing window's opening and closing):
   * after each, the entries written for the record are decided again (src/activity/readers.ts): an update only
   * when it changed what readers depend on. `followers`: other records whose readability follows this one's
   * (a thread's replies follow their starter, by trigger, with no events of their own), as a sub-select of ids.
   */
  follows?: { types: readonly string[]; followers?(event: StoredEvent): Prisma.Sql | null };
}

/**
 * Other events after which entries are decided again (a group hidden or shown, a member joining or leaving
 * it): `entries` names them as a condition over \`activity a\` (null: none), among the followed records' entries.
 */
export interface ActivityRevision {
  types: readonly string[];
  entries(event: StoredEvent): Prisma.Sql | null;
}

/** A recipient: a scope kind and an id. */
export interface Recipient {
  scope: string;
  scopeId: number;
}

const sources = new Map<string, ActivitySource>();
const revisions = new Map<string, ActivityRevision[]>();
/** The areas whose entries follow their records. */
const followedAreas = new Set<string>();

/** Registers an area's source (each event type once), and the revision its `follows` declares. */
export function registerActivitySource(source: ActivitySource): ActivitySource {
  for (const type of source.types) {
    if (sources.has(type)) throw new Error(`activity source for ${type} is registered twice`);
    sources.set(type, source);
  }
  const follows = source.follows;
  if (follows) {
    for (const type of source.types) followedAreas.add(type.slice(0, type.indexOf(".")));
    registerActivityRevision({ types: follows.types, entries: (event) => recordEntries(event, follows.followers?.(event) ?? null) });
  }
  return source;
}

/** Registers events after which entries are decided again. */
export function registerActivityRevision(revision: ActivityRevision): void {
  for (const type of revision.types) revisions.set(type, [...(revisions.get(type) ?? []), revision]);
}

export const activitySourceOf = (type: string) => sources.get(type);
export const activityRevisionsOf = (type: string): readonly ActivityRevision[] => revisions.get(type) ?? [];
/** The areas whose entries follow their records (their sources declare `follows`). */
export const followedAreasList = (): string[] => [...followedAreas];

/** The record's own scope (the site is `site:0`), and the actor: the default recipients. */
export const scopeAndActor = (event: StoredEvent): Recipient[] => [
  { scope: event.scope, scopeId: event.scope === "site" ? 0 : event.scopeId },
  ...(event.actorId ? [{ scope: "member", scopeId: event.actorId }] : []),
];

/**
 * The fields of an area's records that who may read a record, or whether it names its author, depends on: the
 * fields its rule reads (src/common/policy.ts) and its anonymity.
 */
function readershipFields(area: string): Set<string> {
  const written = writtenRecordsOf(area);
  return new Set(written ? readershipFieldsOf(written.records, { author: true }) : []);
}

/**
 * The entries of the event's record (and of its `followers`), when the event can have changed who may read
 * it: a deletion, a window's opening or closing (no `changed`), or an update of a readership field.
 */
function recordEntries(event: StoredEvent, followers: Prisma.Sql | null): Prisma.Sql | null {
  const fields = readershipFields(event.area);
  if (event.changed.length && !event.changed.some((field) => fields.has(field))) return null;
  const records = followers ? Prisma.sql`(a.source_record = ${event.recordId} OR a.source_record IN (${followers}))` : Prisma.sql`a.source_record = ${event.recordId}`;
  return Prisma.sql`(a.source_area = ${event.area} AND ${records})`;
}

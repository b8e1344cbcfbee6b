import type { SqlClient } from "../db/sql.js";
import type { StoredEvent } from "../common/outbox.js";
import type { Recipient } from "./service.js";

/**
 * What an area's event becomes in the activity feed, declared by the area in its own folder
 * (`src/<area>/activity.ts`, imported by its graphql.ts) — the forum adds one file. The consumer
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
   * Membership requests and invitations: the group's managers and the person concerned (`groupManagersAndSubject`).
   */
  recipients?(event: StoredEvent, tx: SqlClient): Promise<Recipient[]> | Recipient[];
}

const sources = new Map<string, ActivitySource>();

/** Registers an area's source (each event type once). */
export function registerActivitySource(source: ActivitySource): ActivitySource {
  for (const type of source.types) {
    if (sources.has(type)) throw new Error(`activity source for ${type} is registered twice`);
    sources.set(type, source);
  }
  return source;
}

export const activitySourceOf = (type: string) => sources.get(type);

/** The record's own scope (the site is `site:0`), and the actor: the default recipients. */
export const scopeAndActor = (event: StoredEvent): Recipient[] => [
  { scope: event.scope, scopeId: event.scope === "site" ? 0 : event.scopeId },
  ...(event.actorId ? [{ scope: "member", scopeId: event.actorId }] : []),
];

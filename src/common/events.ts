import { Prisma } from "../generated/prisma/client.js";
import type { AccessLevelName } from "./access.js";

/**
 * The domain-event catalogue: every event type the write path can append to the outbox, declared by its
 * area (`domainEvents("wiki", { pageCreated: "…" })` in src/<area>/events.ts) and listed in
 * docs/events.md, which a test holds to this catalogue. The events issue delivers them to subscribers,
 * webhooks and plugins; a type is `<area>.<name>`.
 */
export type EventAudience = "readers" | "listers" | "managers";

export interface EventDeclaration {
  description: string;
  /**
   * Who may learn of the event: `readers` (default) whoever may read the record; `listers` whoever finds the
   * record in lists (its list rule: events that say who belongs to a group, which a hidden group's invitee,
   * who may read the group but not its members list, must not learn); `managers` only the scope's managers,
   * administrators and the person the event is about (membership requests, invitations).
   */
  audience?: EventAudience;
}

export interface CatalogueEntry extends Required<EventDeclaration> {
  type: string;
  area: string;
}

const catalogue = new Map<string, CatalogueEntry>();

/** Every declared event type, in declaration order. */
export const eventCatalogue = (): CatalogueEntry[] => [...catalogue.values()];

/**
 * What is wrong with event types that are not in the catalogue, naming the known ones a caller can pick
 * from: those of the areas the unknown ones name when there are such (a typo), else every one. Null when
 * every type is known. Webhook endpoints and the `events` subscription say it alike.
 */
export function unknownEventTypes(types: readonly string[]): string | null {
  const known = eventCatalogue().map((entry) => entry.type);
  const unknown = types.filter((type) => !known.includes(type));
  if (!unknown.length) return null;
  const areas = [...new Set(unknown.map((type) => type.split(".")[0]!))];
  const near = known.filter((type) => areas.includes(type.split(".")[0]!));
  const listed = (near.length ? near : known).sort().join(", ");
  return `${unknown.join(", ")} ${unknown.length > 1 ? "are not event types" : "is not an event type"} of the catalogue (docs/events.md); the ${near.length ? `${areas.join(", ")} ` : ""}event types are ${listed}`;
}

/** An event type of the catalogue, as its area declared it. */
export type EventType<Area extends string = string, Name extends string = string> = `${Area}.${Name}`;

/** Declares an area's events; returns their types by name (`WIKI_EVENTS.pageCreated` is `"wiki.pageCreated"`). */
export function domainEvents<const Area extends string, const Names extends string>(
  area: Area,
  events: Record<Names, string | EventDeclaration>,
): { [N in Names]: EventType<Area, N> } {
  const types = {} as { [N in Names]: EventType<Area, N> };
  for (const [name, declared] of Object.entries(events) as [Names, string | EventDeclaration][]) {
    const type = `${area}.${name}` as EventType<Area, typeof name>;
    if (!/^[a-z][a-zA-Z]*$/.test(name)) throw new Error(`event ${type}: names are lowerCamelCase words`);
    if (catalogue.has(type)) throw new Error(`event ${type} is declared twice`);
    const declaration = typeof declared === "string" ? { description: declared } : declared;
    catalogue.set(type, { type, area, description: declaration.description, audience: declaration.audience ?? "readers" });
    types[name] = type;
  }
  return types;
}

/** Who may learn of events of this type (the catalogue's `audience`). */
export function audienceOf(type: EventType): EventAudience {
  const declared = catalogue.get(type);
  if (!declared) throw new Error(`event type ${type} is not in the catalogue (declare it with domainEvents)`);
  return declared.audience;
}

/** One domain event as the write path appends it (in SQL: `eventStatement`, src/common/write-events.ts; `outboxInsert` for events no record's write makes). */
export interface DomainEvent {
  type: EventType;
  area: string;
  recordId: number;
  /** Null: the system (a migration, a timer). */
  actorId: number | null;
  /** The record hides its author (an anonymous post): the actor is shown to nobody but them and administrators. */
  anonymous: boolean;
  scope: string;
  scopeId: number;
  visibility: AccessLevelName;
  published: boolean;
  /** The person the event is about (an invitee, an applicant). */
  subjectId?: number | null;
  changed: string[];
  /** Ids and names only: never text bodies or secrets. */
  payload: Record<string, string | number | boolean | null>;
}

/** The INSERT of one event (the transaction's id and time are the columns' defaults). */
export function outboxInsert(event: DomainEvent): Prisma.Sql {
  const declared = catalogue.get(event.type);
  if (!declared) throw new Error(`event type ${event.type} is not in the catalogue (declare it with domainEvents)`);
  return Prisma.sql`INSERT INTO outbox (type, area, record_id, actor_id, anonymous, scope, scope_id, visibility, published, audience, subject_id, changed, payload)
    VALUES (${event.type}, ${event.area}, ${event.recordId}, ${event.actorId}, ${event.anonymous}, ${event.scope}, ${event.scopeId}, ${event.visibility},
            ${event.published}, ${declared.audience}, ${event.subjectId ?? null}, ${event.changed}::text[], ${JSON.stringify(event.payload)}::jsonb)
    RETURNING id::text AS id`;
}

import { Prisma } from "../generated/prisma/client.js";
import { domainEvents } from "./events.js";
import type { RecordsDeclaration } from "./records.js";
import { fold, goneKnows, policyOf } from "./policy.js";

/** What the write path needs to know of an area's records, besides their records declaration. */
export interface WrittenRecords {
  area: string;
  records: RecordsDeclaration;
  /** Fields that name a record (title, pagename): copied into every event's payload. Never bodies. */
  names: readonly string[];
  /**
   * Of `names`, those shown to the event's actor and administrators only (the server reads them all): an
   * activity entry's `recipients`, which the feed subscription matches on but a reader must not learn.
   */
  actorOnlyNames?: readonly string[];
  /** `Wiki page 7 not found.` */
  notFound(id: number): string;
  /** Why a caller who may see a record may not change it (403). */
  forbidden: string;
  /** The GraphQL subscription to one record's events, by the naming rule (`wikiPageChanged`): src/events/subscriptions.ts. */
  changedSubscription?: string;
}

const writtenByArea = new Map<string, WrittenRecords>();

/**
 * Whether a record hides its author now (its `anonymous` field set), over `value(field)` (a column of an alias,
 * or a field of a returned row); null for records that never hide it. Events, their readers and the activity
 * entries that follow records ask it.
 */
export const hidesAuthorSql = (target: WrittenRecords, value: (field: string) => Prisma.Sql): Prisma.Sql | null =>
  target.records.anonymous ? Prisma.sql`(${value(target.records.anonymous)})::int <> 0` : null;

/**
 * Declares an area's written records (src/<area>/service.ts); the events' readers find them by area.
 * Records with a publishing window get the events of its opening and closing (`appendWindowEvents`).
 */
export const writtenRecords = (declaration: WrittenRecords): WrittenRecords => {
  if (writtenByArea.has(declaration.area)) throw new Error(`written records of ${declaration.area} are declared twice`);
  // Who is told of a gone record's events asks its author nothing but that they wrote it (readableBy): a rule
  // that asked more would leave authors untold, so it is refused here, once, when the records are declared.
  const author = declaration.records.creator
    ? fold(policyOf(declaration.records).visible, goneKnows({ published: false, visibility: "private" }, { signedIn: true, administrator: false, author: true }, { member: true, moderates: true }))
    : true;
  if (typeof author !== "boolean") throw new Error(`${declaration.area}: the records' rule asks more of a gone record's author than that they wrote it`);
  writtenByArea.set(declaration.area, declaration);
  if (declaration.records.window) {
    domainEvents(declaration.area, {
      windowOpened: "A published record's publishing window opened (its `publish_up` came): readers see it from now on.",
      windowClosed: "A published record's publishing window closed (its `publish_down` came): readers no longer see it.",
    });
  }
  return declaration;
};

/** Every area's written records, in declaration order (the areas' events are about them). */
export const everyWrittenRecords = (): WrittenRecords[] => [...writtenByArea.values()];

/** The written records of an event's `area`, if it declared any. */
export const writtenRecordsOf = (area: string): WrittenRecords | undefined => writtenByArea.get(area);

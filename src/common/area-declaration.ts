import type { z } from "zod";
import type { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "./context.js";
import type { NumberedEnum } from "./access.js";
import type { SqlClient } from "../db/sql.js";
import type { FieldTable, Fields } from "./fields.js";
import type { EventDeclaration, EventType } from "./events.js";
import type { ListArgs, ListSpec, ListSpecInput, Page } from "./list-spec.js";
import type { RecordsDeclaration } from "./records.js";
import type { FixedScope } from "./scope-kinds.js";
import type { WrittenRecords } from "./written-records.js";
import type { ActivitySource } from "./activity-sources.js";
import type { ListRow, RestRow } from "./rest-vocabulary.js";
import type { Config } from "../config.js";

/**
 * What an area declares (src/common/area.ts's defineArea makes the rest from it): the declaration's types,
 * and the area the kit answers for it.
 */

/** A field of the record type as GraphQL shows it (and REST, under its REST name). */
export type Shown =
  /** The model's field of that name, typed after the Prisma model. */
  | true
  /** The same, with this description. */
  | string
  | {
      description?: string;
      /** The key in REST answers: default the name in snake_case; false: GraphQL only (relations by default). */
      rest?: string | false;
      /** The model's field shown, when it is not named so (citations' `authorsText` shows `authors`). */
      from?: string;
      /** An access level or named numbers: its area's enum in GraphQL, the documented number (or name) in REST. */
      levels?: NumberedEnum;
      /** A to-one relation of the model (its record type). */
      relation?: true;
      /** Computed from the row: its GraphQL type (a scalar, a record type by its model's name, an enum by its name) and how. */
      type?: "String" | "Int" | "Boolean" | "[String]" | Prisma.ModelName | (string & {});
      /** Default: the model's (a model field), false (a computed one); true where the read masks it (a group's private description). */
      nullable?: boolean;
      resolve?(row: never, args: never, ctx: RequestContext): unknown;
      /** The field's arguments (a wiki page's `versionId`), handed to `resolve`, or to `query` for a relation. */
      args?: Record<string, { type: "ID" | "Int" | "String"; description?: string; default?: unknown }>;
      /** What `resolve` needs loaded with the row (Pothos' `select` hint: a relation, never a scalar). */
      select?: Record<string, unknown>;
      /** A list relation's Prisma query from its arguments (order, paging). */
      query?(args: never): object;
    };

/** A record type of the area beside its own (a wiki page's revisions): its fields as `shown`'s, its REST fragment `<Model>Rest`. */
export interface RelatedType {
  description: string;
  shown: Record<string, Shown>;
}

/** A list's equality filter (AreaDeclaration.list.filters). */
export interface ListFilter {
  type: "String" | "Int" | "Boolean";
  rule: z.ZodType;
  description: string;
  default?: string | number;
  /** The model's field it filters, when not named so (a category list's `section` filters `sectionId`). */
  column?: string;
  /** The value that filters nothing (the forum's `section` 0: every section; a Boolean filter's is false). */
  all?: string | number;
  /** A Boolean filter's column value when it is true (the forum's `threadsOnly`: `starter` = 1). */
  equals?: string | number;
  /**
   * A filter that is no equality (activity's date range, its recipients): the condition over the list's
   * alias `t` for a given value (parsed by `rule`; 400 naming the filter from it or from here).
   */
  condition?(value: never, ctx: RequestContext): Prisma.Sql;
  /** Documented as required (with its default: the forum's `section`), though a request may leave it out. */
  required?: true;
  /**
   * The filter names a record of another area (a category list's section): one the caller may not see is
   * a 404 naming the filter, as is one of another scope than the list's, rather than an empty page that
   * reads as "none there". One lookup by id, only when a value is given. A function: areas may name each
   * other whatever order their modules load in.
   */
  names?: () => AnyArea;
}

/** A field whose value is unique within the record's scope (a blog entry's alias), derived when absent. */
export interface UniqueName {
  field: string;
  /** The name derived from the parsed create input (from its title). */
  derive(data: Record<string, unknown>): string;
  /** What joins a number to a taken name (`-` gives `title-2`). */
  separator: string;
  /** How the 409's message names it ("alias", "page name"). */
  label: string;
  /** The conflict's message when a given name is taken. */
  taken: string;
}

export interface AreaDeclaration<T extends FieldTable = FieldTable, E extends string = string> {
  /** Events' area and the documents' names ("blog"). */
  area: string;
  model: Prisma.ModelName;
  /** The list's root field (`blogEntries`); the read is the model in camelCase (`blogEntry`). */
  plural: string;
  /** What a 404 calls a record: `${label} ${id} not found.` ("Blog entry"). */
  label: string;
  /** The GraphQL record type's description. */
  description: string;
  /** Who sees a record (src/common/records.ts; the policy of src/common/policy.ts is compiled from it). */
  policy: Omit<RecordsDeclaration, "model"> | RecordsDeclaration;
  /**
   * How a record is named besides its id (a group by gidNumber or cn): the GraphQL `id` argument's and REST
   * `{id}`'s description, the key parsed from them (400 naming the parameter), the condition over the table's
   * alias that finds it (a read), and the id of the record it names for a write (404 for one the caller may
   * not know). Absent: a positive integer id.
   */
  key?: {
    description: string;
    parse(raw: string, parameter?: string): unknown;
    sql(key: never, alias: string): Prisma.Sql;
    idOf(ctx: RequestContext, raw: string): Promise<number>;
  };
  /** The inputs' fields (src/common/fields.ts): rules, defaults, columns, REST parameters. */
  fields: T;
  /**
   * The record type's fields, in the REST answer's order. A scalar of the model that an input field writes
   * (`fields`, by its column) and that is named neither here (nor as a `from`) is shown too, after these, as
   * `true` is: so a new field clients write is one line in `fields` (and its column). Every other scalar
   * must be named here or in `hidden` (or the policy's `searchOnly`): `defineArea` refuses an area that
   * leaves one unsaid, so a column kept for the server's own use (a secret, a hash) is never shown by default.
   */
  shown: Record<string, Shown>;
  /** Scalars of the model never shown (kept by the database or the service for their own use: an announcement's rank). */
  hidden?: string[];
  /** Absent: no list (accounts: nobody lists them). */
  list?: Omit<ListSpecInput, "records"> & {
    description: string;
    /**
     * Equality filters beside the spec's arguments (plugin records: folder, enabled, access), each a GraphQL
     * argument and a REST parameter of the list, in this order before the spec's: its rule (400 naming it),
     * its documented default; absent or empty and no default: not filtered.
     */
    filters?: Record<string, ListFilter>;
  };
  /** Absent: no read by id (accounts: the caller reads their own through the area's own `me`). */
  read?: { description: string };
  /**
   * `false`: no root fields of its own: the records are reached through a group plugin only
   * (announcements: a hidden group's are never reached by id alone).
   */
  rootFields?: false;
  /**
   * Who writes: `users` (any signed-in user creates, in a scope whose kind admits them; the creator, the
   * scope's managers and administrators change and delete), `managers` (the scope's managers and
   * administrators only, also for changes: a creator who is no longer a manager may not), `administrators`.
   * `forbidden`: the 403 of a caller who may see a record but not change it.
   */
  writes: {
    by: "users" | "managers" | "administrators";
    /**
     * Creates only by administrators, where changes follow `by` (courses: administrators create them, a course's
     * managers change it — the record is its own scope, `isScope`).
     */
    creates?: "administrators";
    forbidden: string;
    /**
     * Creates are open to anyone, anonymous callers included, while this holds of the configuration
     * (accounts: REGISTRATION=open); the area's `own.create` decides the rest.
     */
    openedBy?(config: Config): boolean;
    /** The create mutation's description. */
    create?: string;
    /** Refuses a change of scope (400 naming `scope`) with this reason: "an announcement stays in its group". */
    staysInScope?: string;
    /** A unique constraint's violation as a 409 naming a parameter (plugin records: one per folder and element). */
    conflict?: { parameter: string; message: string; column: string };
    /**
     * What a create makes beside the record, in its transaction, each through the write path with its own event
     * (a course unit's default asset groups): given the new record's id and scope.
     */
    alongside?(tx: RequestContext & { tx: SqlClient }, created: { id: number; scope?: string; scopeId?: number }): Promise<unknown>;
    /** What a delete removes first, in its transaction, once the record is locked and authorized (a group's content). */
    removes?(tx: RequestContext & { tx: SqlClient }, id: number, row: Record<string, unknown>): Promise<unknown>;
    /** Columns computed from the input (and, in an update, the row before it): an announcement's rank. */
    derived?(data: Record<string, unknown>, row?: Record<string, unknown>): Record<string, unknown>;
    /** Fields naming a record, copied into its events (never bodies). */
    names: readonly string[];
    /** Of `names`, those only the actor's audience is told (activity's recipients): src/common/written-records.ts. */
    actorOnlyNames?: readonly string[];
    /** The GraphQL update input's description. */
    update?: string;
    /** The delete mutation's description (an area with events). */
    remove?: string;
  };
  uniqueName?: UniqueName;
  /**
   * A record whose scope is its parent record's (a forum category's is its section's): `field` names the
   * parent, a record of `model`, which `label` names in messages ("Section"). A create takes the parent's
   * scope (400 naming `field` where there is none); a change moves the record only to a parent of its own
   * scope (400 naming `field`), that parent held FOR KEY SHARE until the write commits.
   */
  /**
   * Fields naming another record that must be in the record's own scope (a course unit's section, an asset
   * group's parent: never one of another course): on a create, and on an update that names one or moves the
   * record, the record named is looked up (held FOR KEY SHARE inside the update) and one that does not exist or is
   * in another scope is 400 naming the field, alike, so nothing is learnt of another scope.
   */
  references?: {
    /** The field naming the other record (a unit's `sectionId`, an asset group's `parentId`). */
    field: string;
    model: Prisma.ModelName;
    /** What messages call it ("Section"). */
    label: string;
  }[];
  within?: {
    field: string;
    model: Prisma.ModelName;
    label: string;
    /**
     * A record may have no parent: it is then the site's (scope site, id 0), which only administrators write under
     * `writes.by` "managers" (a course's unit in no offering yet). An update naming a parent moves it into the
     * parent's scope; a record with a parent never goes back to none (400 naming `field`).
     */
    optional?: true;
  };
  /** The area's other record types (src/graphql/area.ts makes them, with their REST fragments). */
  related?: Partial<Record<Prisma.ModelName, RelatedType>>;
  /**
   * How a create inserts, when more than the record goes in its statement (a wiki page's first revision): the
   * WITH list whose entry `created` returns the record (`insertStatement`), given the record's column values
   * and the parsed input; `relations` as `createRecord`'s answer takes them.
   */
  inserts?: {
    statement(ctx: RequestContext, records: RecordsDeclaration, values: Record<string, unknown>, data: Record<string, unknown>, userId: number): Prisma.Sql;
    relations?: Record<string, string>;
    /** The 409's message when the statement inserted nothing (its ON CONFLICT met a taken value). */
    taken?(data: Record<string, unknown>): string;
  };
  /**
   * What an update writes beyond the fields' columns (a wiki page's new revision): WITH entries before the
   * UPDATE and more column values, given the parsed input and the locked row; undefined: nothing more.
   */
  updates?(tx: RequestContext, id: number, data: Record<string, unknown>, row: Record<string, unknown>, userId: number): { with?: Prisma.Sql; values?: Record<string, unknown> } | undefined;
  /**
   * The domain events: one name ending in Created, Updated and Deleted each, with its description and audience
   * (docs/events.md). Absent: records that raise none (accounts), which the kit then neither changes nor
   * deletes (every change is an event): `own.create` makes them, and the area has no update or delete.
   */
  events?: Record<E, string | EventDeclaration>;
  /**
   * What more a deleted scope (a group, a course) takes beyond the area's records in it (activity: the scope as a
   * recipient of other scopes' entries), run after them in the scope's delete; `models` as src/common/scope-content.ts names them.
   */
  scopeContent?: { models: Prisma.ModelName[]; remove(tx: RequestContext, scope: FixedScope): Promise<unknown> };
  /**
   * The activity feed's entry for a created record (src/common/activity-sources.ts); absent: none. `follows`: the
   * events after which its entries are decided again, or those with the records that follow it (a thread's replies).
   */
  activity?: Omit<ActivitySource, "types" | "follows"> & { follows?: readonly string[] | NonNullable<ActivitySource["follows"]> };
  /**
   * The area's own writes where the kit's do not fit, each in place of the kit's function of that name (the
   * forum's posts: a reply takes its thread's category and scope under the thread's lock, moderation has its
   * own rules). They must still write through the write path with `writesOf` and `eventTypes`.
   */
  own?: {
    create?(ctx: RequestContext, input: Record<string, unknown>, query?: Query): Promise<unknown>;
    update?(ctx: RequestContext, id: number, input: Record<string, unknown>, query?: Query): Promise<unknown>;
    remove?(ctx: RequestContext, id: number): Promise<number>;
  };
  /** The REST operations; absent: none (announcements are the group plugin's). */
  rest?: {
    versions: string[];
    /**
     * The `id` placeholder's description, and its documented default where the document gives one (the wiki's
     * 0), or its type where it is not an integer (a group's gidNumber or cn).
     */
    id?: string | { description: string; default?: number; type?: "string" };
    /**
     * The list's row: its answer the contract's wrapper `{[key], total, …extra}`, or another registered kind
     * (groups: a bare array). Several rows where versions take different parameters (activity 1.0 and 1.1: a
     * row's `except` names the list parameters it does not take).
     */
    list?: ListRow | ListRow[];
    create?: RestRow;
    read?: RestRow;
    /** PUT: every field, the PATCH row derived from it (rest-facade/table.ts). */
    replace?: RestRow;
    remove?: RestRow;
  };
}

/** What Pothos' Prisma plugin asks a read to load for the selected fields (as src/graphql/crud.ts's). */
export type Query = { include?: object; select?: object };

export interface Area<T extends FieldTable = FieldTable, E extends string = string> extends AreaDeclaration<T, E> {
  /** `shown` with the model's other scalars after it (see AreaDeclaration.shown). */
  shownFields: Record<string, Shown>;
  records: RecordsDeclaration;
  listSpec: ListSpec;
  table: Fields<T>;
  writesOf: WrittenRecords;
  eventTypes: { created: EventType; updated: EventType; deleted: EventType };
  /** Every event type of the area by name (`GROUPS.eventsNamed.memberJoined` is "groups.memberJoined"). */
  eventsNamed: Record<E, EventType>;
  /** A page of the records the caller may see. */
  listRecords<R = unknown>(ctx: RequestContext, args: ListArgs, query?: Query): Page<R>;
  /** A record the caller may see, or 404 (records the caller may not see do not exist for them); by its key where it has one. */
  readRecord<R = unknown>(ctx: RequestContext, id: number | string, query?: Query): Promise<R>;
  createRecord<R = unknown>(ctx: RequestContext, input: Record<string, unknown>, query?: Query): Promise<R>;
  /** Changes the given fields only; answers the record as the caller may read it (null: may change, not read). */
  updateRecord<R = unknown>(ctx: RequestContext, id: number | string, input: Record<string, unknown>, query?: Query): Promise<R | null>;
  removeRecord(ctx: RequestContext, id: number | string): Promise<number>;
}

/** Any area, as the kit's generators read it (its field table's own types do not matter to them). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyArea = Area<any, any>;

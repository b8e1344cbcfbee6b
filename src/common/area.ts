import { z } from "zod";
import { Prisma } from "../generated/prisma/client.js";
import { prismaDatamodel } from "./datamodel.js";
import { sqlOf, type RequestContext } from "./context.js";
import type { NumberedEnum } from "./access.js";
import { ApiError, badInput, conflict as conflictError, notFound } from "./errors.js";
import type { SqlClient } from "../db/sql.js";
import { columnValues, fieldTable, type FieldTable, type Fields } from "./fields.js";
import { domainEvents, type EventDeclaration, type EventType } from "./events.js";
import { pagedList } from "./paging.js";
import { listedScope, listSpec, type ListArgs, type ListSpec, type ListSpecInput, type Page } from "./list-spec.js";
import { changedRecord, createdRecord, findVisible } from "./record-reads.js";
import { modelInfo } from "./model.js";
import { records, type RecordsDeclaration } from "./records.js";
import { type Selection } from "./row-reading.js";
import { assertCanWriteInScope, requireAdministrator, requireUser, resolveCreator, type ScopeRule } from "./scopes.js";
import { assertNameFree, createWithUniqueName, takenNames } from "./slug.js";
import { assertPublishingWindow, changesNothing, parseId, parseInput } from "./validation.js";
import { changeRecord, createRecord, deleteRecord, deleteScopeRecords } from "./write-path.js";
import { insertStatement, updateStatement } from "./write-statements.js";
import { writtenRecords, type WrittenRecords } from "./written-records.js";
import { writeFailure } from "./database-errors.js";
import { registerGroupContent } from "./group-content.js";
import { registerActivitySource, type ActivitySource } from "./activity-sources.js";
import type { RestParam, RestResponse } from "./rest-vocabulary.js";
import type { Config } from "../config.js";

/**
 * An area as ONE declaration (issue 27, item 4; docs/adding-an-area.md): its model, its fields, who sees
 * its records, its list, its events and its REST operations. The kit makes the rest from it:
 * - the service: `list`, `read`, `create`, `update`, `remove` (the contract's rules: visibility, the
 *   creator, the scope's writers, the publishing window, a name unique in its scope, the write path's
 *   events), so an area writes only what is its own;
 * - the GraphQL type, its root fields and inputs (src/graphql/area.ts);
 * - the REST rows, their documents and so the OpenAPI entries (rest-facade/area-rows.ts);
 * - a deleted group's records going with it, each with its event, and the activity feed's entries.
 * Defining an area registers it (`declaredAreas`); src/areas.ts imports each area's file (the registry).
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

/** One documented REST operation of the area's record. */
export interface RestRow {
  path: string;
  /** The API document's task ("create an entry"). */
  task: string;
  /** The API document's section the shared tests read it from, when not the area's (rest-facade/types.ts). */
  documentedIn?: string;
  /** Default the area's `rest.versions`. */
  versions?: string[];
  /** How this row names the record's id when not as the area's `rest.id` (plugins: `extension_id` from `{id}`). */
  id?: { name?: string; description?: string; default?: number };
  /** What the answer selects on the record beyond its fragment (a wiki page's text and revision). */
  selection?: string;
  /**
   * Parameters beyond the id and the fields, each feeding a variable `selection` uses, with its GraphQL type.
   */
  params?: (RestParam & { graphqlType: string })[];
  /** Fields of the table the row does not take (the wiki's POST: `summary`); of a list row, the REST parameters it does not take. */
  except?: string[];
  /** A `fields` parameter: the keys of the answer to keep (rest-facade/fields-param.ts), by default and always. */
  fields?: { default: string[]; alwaysKept?: string[]; description: string };
}

/** A list's REST row (AreaDeclaration.rest.list). */
export type ListRow = RestRow &
  ({ key: string; extra?: Record<string, unknown> } | { response: RestResponse }) & {
    /**
     * The row's parameters where the API document names or orders them otherwise than the kit (filters,
     * `limit`, `start`, `search`, `sort`, `sort_Dir`, `scope`, `scope_id`): in its order, each kit name
     * `true` or its documented name (the forum's `start: "limitstart"`); one left out is not taken, its
     * argument keeps its default (or `fixed`'s value).
     */
    documented?: Record<string, string | true>;
    /** GraphQL arguments the row fixes rather than takes (forum sections: one page of `limit: 100`). */
    fixed?: Record<string, number | string>;
  };

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
  within?: { field: string; model: Prisma.ModelName; label: string };
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
   * What more a deleted group takes beyond the area's records in it (activity: the group as a recipient of
   * other scopes' entries), run after them in the group's delete; `models` as src/common/group-content.ts names them.
   */
  groupContent?: { models: Prisma.ModelName[]; remove(tx: RequestContext, groupId: number): Promise<unknown> };
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
type Query = { include?: object; select?: object };

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

const areas = new Map<string, AnyArea>();

/** Every area defined so far, by area name. */
export const declaredAreas = (): AnyArea[] => [...areas.values()].sort((a, b) => a.area.localeCompare(b.area));

function eventNamed(area: string, events: Record<string, unknown>, ending: string): EventType {
  const names = Object.keys(events).filter((name) => name.endsWith(ending));
  if (names.length !== 1) throw new Error(`area ${area}: events must name exactly one …${ending} event, not ${names.length}`);
  return `${area}.${names[0]}` as EventType;
}

/**
 * `shown`, then the scalars of the model that an input field writes (`written`) and `shown` does not name (as
 * a field or a `from`). Fails closed: a scalar neither named, written nor `hidden` is refused, so nothing the
 * declaration does not speak of is ever shown.
 */
export function withModelScalars(model: string, shown: Record<string, Shown>, hidden: string[], written: string[]): Record<string, Shown> {
  const fields = prismaDatamodel().datamodel.models[model]?.fields ?? [];
  const named = new Set([...Object.keys(shown), ...Object.values(shown).flatMap((field) => (typeof field === "object" && field.from ? [field.from] : []))]);
  for (const name of hidden) {
    if (!fields.some((field) => field.name === name)) throw new Error(`${model}: hidden field ${name} is not a field of the model`);
  }
  const unsaid = fields.filter((field) => field.kind === "scalar" && !named.has(field.name) && !hidden.includes(field.name));
  const unwritten = unsaid.filter((field) => !written.includes(field.name));
  if (unwritten.length) {
    throw new Error(`${model}: ${unwritten.map((field) => field.name).join(", ")}: say whether the record type shows each (shown) or not (hidden)`);
  }
  return { ...shown, ...Object.fromEntries(unsaid.map((field) => [field.name, true as const])) };
}

/** A record's noun as the messages name it ("Forum section": "section"). */
const nounOf = (label: string) => label.split(" ").pop()!.toLowerCase();

/** Declares an area (see above): checks it, registers it and answers it with the service the kit makes from it. */
export function defineArea<const T extends FieldTable, const E extends string>(declaration: AreaDeclaration<T, E>): Area<T, E> {
  if (areas.has(declaration.area)) throw new Error(`area ${declaration.area} is defined twice`);
  // Options the kit cannot serve together: refused here rather than at the first write.
  const scopedOnly = [declaration.uniqueName && "uniqueName", declaration.writes.by === "managers" && 'writes.by "managers"', declaration.writes.staysInScope && "writes.staysInScope"].filter(Boolean);
  if (!declaration.policy.scoped && scopedOnly.length) throw new Error(`area ${declaration.area}: ${scopedOnly.join(", ")} need scoped records`);
  if (declaration.policy.administratorsOnly && declaration.writes.by !== "administrators") {
    throw new Error(`area ${declaration.area}: records only administrators read are written by administrators only (writes.by)`);
  }
  if (declaration.writes.conflict && declaration.uniqueName) throw new Error(`area ${declaration.area}: writes.conflict and uniqueName name two conflicts; the kit answers one`);
  if (declaration.inserts?.taken && !declaration.writes.conflict) throw new Error(`area ${declaration.area}: inserts.taken answers writes.conflict's parameter: declare it`);
  for (const [name, filter] of Object.entries(declaration.list?.filters ?? {})) {
    if ((filter.type === "Boolean") !== (filter.equals !== undefined)) throw new Error(`area ${declaration.area}: list filter ${name}: a Boolean filter, and only one, says what it \`equals\``);
  }
  if (declaration.within && (!declaration.policy.scoped || "scope" in declaration.fields || "scopeId" in declaration.fields)) {
    throw new Error(`area ${declaration.area}: a record within a parent takes its parent's scope: scoped records, and no scope or scopeId field`);
  }
  // The records declaration, or one the area's folder made already (groups: its identity module reads it too).
  const policy = "model" in declaration.policy ? declaration.policy : records({ model: declaration.model, ...declaration.policy });
  if (policy.model !== declaration.model) throw new Error(`area ${declaration.area}: its policy is ${policy.model}'s, not ${declaration.model}'s`);
  const list = declaration.list;
  const spec = list && listSpec({ records: policy, sortColumns: list.sortColumns, defaults: list.defaults, search: list.search });
  const table = fieldTable(declaration.fields);
  const events = declaration.events;
  // Parts its REST rows or GraphQL fields would ask for and the declaration does not give: refused here, not at
  // the first request. Records that raise no events are made by the area's own create and never changed by the
  // kit (each change is an event).
  const missingParts = [
    !events &&
      (!declaration.own?.create || declaration.rest?.replace || declaration.rest?.remove || declaration.activity) &&
      "an area without events makes its records with own.create, and has no update, delete or activity",
    events && !declaration.writes.remove && "describe its delete mutation (writes.remove)",
    declaration.rest?.list && !declaration.list && "rest.list without a list",
    declaration.rest?.read && !declaration.read && "rest.read without a read",
    !events && (declaration.own?.update || declaration.own?.remove) && "own.update or own.remove without events (no update or delete is made for them)",
    declaration.writes.openedBy && !declaration.own?.create && "writes.openedBy without own.create (the area's own create decides who may, as the configuration says)",
  ].filter(Boolean);
  if (missingParts.length) throw new Error(`area ${declaration.area}: ${missingParts.join("; ")}`);
  const eventsByName = events && (domainEvents(declaration.area, events) as Record<E, EventType>);
  const eventTypes = events && {
    created: eventNamed(declaration.area, events, "Created"),
    updated: eventNamed(declaration.area, events, "Updated"),
    deleted: eventNamed(declaration.area, events, "Deleted"),
  };
  const missing = (id: number | string) => `${declaration.label} ${id} not found.`;
  /** A write's record id from what names it (a key: 404 for one the caller may not know). */
  const idFrom = (ctx: RequestContext, named: number | string): Promise<number> | number =>
    declaration.key ? declaration.key.idOf(ctx, String(named)) : typeof named === "string" ? parseId(named) : named;
  const writes = events && writtenRecords({
    area: declaration.area,
    changedSubscription: `${declaration.model[0]!.toLowerCase()}${declaration.model.slice(1)}Changed`,
    records: policy,
    names: declaration.writes.names,
    notFound: missing,
    forbidden: declaration.writes.forbidden,
    ...(declaration.writes.actorOnlyNames ? { actorOnlyNames: declaration.writes.actorOnlyNames } : {}),
  });
  const { uniqueName, fields } = declaration;
  const byAdministrators = declaration.writes.by === "administrators";
  const writer = (ctx: RequestContext) => (byAdministrators ? requireAdministrator(ctx, declaration.writes.forbidden) : requireUser(ctx));
  // Written by the scope's managers only: the kit's default lets a record's creator change it too, and a
  // member who was a manager once is no longer one. So the locked row's scope must be managed by the caller
  // (administrators pass), asked in the write's transaction; a record the caller cannot see stays a 404.
  const managed: ScopeRule | undefined = declaration.writes.by === "managers" ? { rule: "managers", refused: declaration.writes.forbidden } : undefined;
  const authorize = managed
    ? (locked: { __visible: boolean; __manages: boolean; id?: unknown }) => {
        if (!locked.__visible && !locked.__manages) throw notFound(missing(Number(locked.id)));
      }
    : undefined;
  const assertManaged = (tx: RequestContext, row: Record<string, unknown>) =>
    managed ? assertCanWriteInScope(tx, row.scope as string, row.scopeId as number, managed) : Promise.resolve();
  const takes = (field: string) => Object.hasOwn(fields, field);
  const takenIn = (ctx: RequestContext, scope: { scope: string; scopeId: number }, exceptId?: number) =>
    takenNames(ctx, policy, uniqueName!.field, scope, exceptId);
  const conflict = declaration.writes.conflict ?? (uniqueName ? { parameter: uniqueName.field, message: uniqueName.taken, column: uniqueName.field } : undefined);
  // Records only administrators read: reads and lists refuse anyone else (401, 403) rather than find nothing.
  const reader = (ctx: RequestContext) => {
    if (policy.administratorsOnly) requireAdministrator(ctx, declaration.writes.forbidden);
  };
  const filters = Object.entries(list?.filters ?? {});
  // Each filter's rule as the object schema parseInput takes, made once: a zod object schema compiles its
  // parser on first use, so one made per request cost a list ≈5 % of its CPU (forum-threads, issue 27 bench).
  const filterSchemas = new Map(filters.map(([name, filter]) => [name, z.object({ [name]: filter.rule })]));
  /**
   * The list's filters as given or defaulted, each checked by its rule (400 naming it), in one pass: the
   * equality filters by the field each filters (`values`), the others as their conditions.
   */
  const filtersOf = (ctx: RequestContext, args: Record<string, unknown>): { values?: Record<string, string | number>; conditions: Prisma.Sql[] } => {
    if (!filters.length) return { conditions: [] };
    const values: Record<string, string | number> = {};
    const conditions: Prisma.Sql[] = [];
    for (const [name, filter] of filters) {
      const given = args[name] ?? filter.default;
      if (given == null || given === "") continue;
      const value = (parseInput(filterSchemas.get(name)!, { [name]: given }) as Record<string, string | number | boolean>)[name]!;
      if (filter.condition) conditions.push(filter.condition(value as never, ctx));
      else if (typeof value === "boolean") {
        if (value) values[filter.column ?? name] = filter.equals!;
      } else if (value !== filter.all) values[filter.column ?? name] = value;
    }
    return { values, conditions };
  };
  /** A filter naming another area's record: that record must be one the caller sees, of the listed scope (404 naming the filter). */
  const assertNamedRecords = async (ctx: RequestContext, args: ListArgs & Record<string, unknown>, values: Record<string, string | number> | undefined) => {
    for (const [name, filter] of filters) {
      const id = values?.[filter.column ?? name];
      if (!filter.names || id === undefined) continue;
      const named = filter.names();
      const noun = nounOf(named.label);
      const every = filter.all === undefined ? "" : ` (${filter.all}: every ${noun})`;
      const found = await findVisible<{ scope: string; scopeId: number }>(ctx, named.records, Number(id), { select: { scope: true, scopeId: true } } as Selection);
      if (!found) throw new ApiError(404, `${named.label} ${id} does not exist.`, [{ parameter: name, message: `names no ${named.label.toLowerCase()} you may see${every}` }]);
      const { scope, scopeId } = listedScope(args);
      if (found.scope !== scope || found.scopeId !== scopeId) {
        throw new ApiError(404, `${named.label} ${id} is not one of ${scope} ${scopeId}.`, [
          { parameter: name, message: `names a ${noun} of ${found.scope} ${found.scopeId}, not of the scope listed (${scope} ${scopeId}): give that scope${filter.all === undefined ? "" : `, or ${name}=${filter.all}`}` },
        ]);
      }
    }
  };
  const namesRecords = filters.some(([, filter]) => filter.names);
  const within = declaration.within;
  /** The parent's scope (within): its row, held FOR KEY SHARE inside a write's transaction; null where there is none. */
  const parentScope = async (ctx: RequestContext, id: number, lock: boolean): Promise<{ scope: string; scopeId: number } | null> => {
    const table = Prisma.raw(modelInfo(ctx.db, within!.model).table);
    const [parent] = await sqlOf(ctx).query<{ scope: string; scope_id: number }>(
      Prisma.sql`SELECT scope, scope_id FROM ${table} WHERE id = ${id}${lock ? Prisma.sql` FOR KEY SHARE` : Prisma.empty}`,
    );
    return parent ? { scope: parent.scope, scopeId: parent.scope_id } : null;
  };
  const window = policy.window;
  // Who wrote a record: the creator the policy names, else the model's `createdById` where it keeps one (citations).
  const hasCreatedById = prismaDatamodel().datamodel.models[declaration.model]?.fields.some((field) => field.name === "createdById");
  const creator = policy.creator ?? (hasCreatedById ? "createdById" : undefined);

  /** A part the declaration may leave out (a list, events), asked for where the area has none: a programming error. */
  const part = <V>(value: V | undefined, what: string): V => {
    if (value === undefined) throw new Error(`area ${declaration.area} declares no ${what}`);
    return value;
  };
  const area: Area<T, E> = {
    ...declaration,
    shownFields: withModelScalars(
      declaration.model,
      declaration.shown,
      [...(declaration.hidden ?? []), ...(policy.searchOnly ?? [])],
      Object.entries(declaration.fields).flatMap(([name, field]) => (field.column === false ? [] : [field.column ?? name])),
    ),
    records: policy,
    get listSpec() {
      return part(spec, "list");
    },
    table,
    get writesOf() {
      return part(writes, "events");
    },
    get eventTypes() {
      return part(eventTypes, "events");
    },
    get eventsNamed() {
      return part(eventsByName, "events");
    },
    listRecords<R>(ctx: RequestContext, args: ListArgs, query: Query = {}): Page<R> {
      reader(ctx);
      const { values, conditions } = filtersOf(ctx, args as Record<string, unknown>);
      const page = pagedList<R>(part(spec, "list"), ctx, args, query as Selection, values, conditions);
      if (!namesRecords) return page;
      let known: Promise<void> | undefined;
      const checked = () => (known ??= assertNamedRecords(ctx, args as ListArgs & Record<string, unknown>, values));
      return { items: async () => (await checked(), page.items()), total: async () => (await checked(), page.total()) };
    },
    async readRecord<R>(ctx: RequestContext, id: number | string, query: Query = {}) {
      reader(ctx);
      const key = declaration.key;
      const row = await findVisible<R>(ctx, policy, key ? key.sql(key.parse(String(id)) as never, "t") : await idFrom(ctx, id), query as Selection);
      if (!row) throw notFound(missing(key ? String(id).trim() : id));
      return row;
    },
    async createRecord<R>(ctx: RequestContext, input: Record<string, unknown>, selected: Query = {}) {
      const query = selected as Selection;
      const user = writer(ctx);
      const data = parseInput(table.create, input) as Record<string, unknown>;
      const values: Record<string, unknown> = { ...columnValues(table, data, "create") };
      if (creator) values[creator] = takes("createdBy") ? await resolveCreator(ctx, data.createdBy as number | null | undefined, user.id) : user.id;
      if (window) {
        values[window.up] = (data[window.up] as Date | undefined) ?? new Date();
        assertPublishingWindow(values[window.up] as Date, data[window.down] as Date | null | undefined);
      }
      Object.assign(values, declaration.writes.derived?.(data));
      if (within) {
        const parent = await parentScope(ctx, data[within.field] as number, false);
        if (!parent) throw badInput(within.field, `${within.label} ${String(data[within.field])} does not exist.`);
        Object.assign(values, parent);
      }
      const scope = policy.scoped ? { scope: values.scope as string, scopeId: values.scopeId as number, ...(managed ? { admits: managed } : {}) } : undefined;
      const insert = (extra: Record<string, unknown>) =>
        createRecord<{ id: number }>(ctx, part(writes, "events"), {
          event: part(eventTypes, "events").created,
          scope,
          answer: { query, relations: declaration.inserts?.relations },
          inserted: declaration.inserts
            ? declaration.inserts.statement(ctx, policy, { ...values, ...extra }, data, user.id)
            : Prisma.sql`created AS (${insertStatement(ctx, policy, { ...values, ...extra }, uniqueName ? { skipConflictOn: ["scope", "scopeId", uniqueName.field] } : {})})`,
        });
      const created = uniqueName
        ? await createWithUniqueName({
            requested: data[uniqueName.field] as string | undefined,
            derivedFrom: uniqueName.derive(data),
            separator: uniqueName.separator,
            parameter: uniqueName.field,
            label: uniqueName.label,
            taken: takenIn(ctx, scope!),
            insert: (name) => insert({ [uniqueName.field]: name }),
          })
        : await insert({}).catch(writeFailure({ conflict }));
      // Nothing inserted: the statement's ON CONFLICT DO NOTHING met a taken unique value (a group's cn).
      if (!created) throw conflictError(conflict?.parameter ?? "id", declaration.inserts?.taken?.(data) ?? conflict?.message ?? "This record exists already.");
      return createdRecord<R>(ctx, policy, created, query);
    },
    async updateRecord<R>(ctx: RequestContext, named: number | string, input: Record<string, unknown>, query: Query = {}) {
      const user = writer(ctx);
      const data = parseInput(table.update, input) as Record<string, unknown>;
      const id = await idFrom(ctx, named);
      await changeRecord<Record<string, unknown> & { id: number }>(ctx, part(writes, "events"), id, {
        event: part(eventTypes, "events").updated,
        authorize: authorize && ((locked) => authorize({ ...locked, id })),
        async change(tx, row) {
          await assertManaged(tx, row);
          if (changesNothing(data)) return { row, changed: [] };
          const values: Record<string, unknown> = { ...declaration.writes.derived?.(data, row) };
          const scope = policy.scoped ? { scope: (data.scope as string) ?? row.scope, scopeId: (data.scopeId as number) ?? row.scopeId } : undefined;
          const moved = scope !== undefined && (scope.scope !== row.scope || scope.scopeId !== row.scopeId);
          if (moved && declaration.writes.staysInScope) throw badInput("scope", declaration.writes.staysInScope);
          if (moved) await assertCanWriteInScope(tx, scope.scope, scope.scopeId, managed);
          // Within a parent: to another parent of the record's own scope only (its children keep their scope).
          const parent = within && (data[within.field] as number | undefined);
          if (within && parent != null && parent !== row[within.field]) {
            const found = await parentScope(tx, parent, true);
            if (!found || found.scope !== row.scope || found.scopeId !== row.scopeId) {
              throw badInput(within.field, `${within.label} ${parent} does not exist in this ${nounOf(declaration.label)}'s scope.`);
            }
          }
          // The creator as resolved (0 or absent: as it was), in a value of its own: the parsed input stays as given.
          const createdBy = creator && takes("createdBy") ? { createdBy: await resolveCreator(tx, data.createdBy as number | null | undefined, row[creator] as number) } : {};
          if (window) {
            // The end: absent keeps the stored one, null removes it (the window stays open).
            const down = data[window.down] === undefined ? row[window.down] : data[window.down];
            assertPublishingWindow((data[window.up] as Date | undefined) ?? (row[window.up] as Date), down as Date | null);
            values[window.down] = down;
          }
          if (uniqueName) {
            const name = (data[uniqueName.field] as string | undefined) ?? row[uniqueName.field];
            if (name !== row[uniqueName.field] || moved) await assertNameFree(name as string, takenIn(tx, scope!, id), uniqueName.field, uniqueName.label);
            values[uniqueName.field] = name;
          }
          const more = declaration.updates?.(tx, id, data, row, user.id);
          return { with: more?.with, update: updateStatement(tx, policy, id, { ...columnValues(table, { ...data, ...createdBy }, "update"), ...values, ...scope, ...more?.values }) };
        },
      }).catch(writeFailure({ conflict, missing: missing(id) }));
      return changedRecord<R>(ctx, policy, id, query as Selection);
    },
    async removeRecord(ctx, named) {
      writer(ctx);
      const id = await idFrom(ctx, named);
      const removes = declaration.writes.removes;
      return deleteRecord(ctx, part(writes, "events"), id, part(eventTypes, "events").deleted, {
        authorize: authorize && ((locked) => authorize({ ...locked, id })),
        before:
          managed || removes
            ? async (tx, row) => {
                await assertManaged(tx, row as Record<string, unknown>);
                await removes?.(tx, id, row as Record<string, unknown>);
              }
            : undefined,
      });
    },
  };

  const own = declaration.own;
  if (own?.create) area.createRecord = own.create as Area["createRecord"];
  if (own?.update) area.updateRecord = (async (ctx: RequestContext, named: number | string, input: Record<string, unknown>, query?: Query) => own.update!(ctx, await idFrom(ctx, named), input, query)) as Area["updateRecord"];
  if (own?.remove) area.removeRecord = async (ctx, named) => own.remove!(ctx, await idFrom(ctx, named));

  // A deleted group's records go with it, each with its own deleted event (src/common/group-content.ts).
  if (policy.scoped && writes && eventTypes) {
    const more = declaration.groupContent;
    registerGroupContent({
      area: declaration.area,
      models: [declaration.model, ...(more?.models ?? [])],
      async remove(tx, groupId) {
        const removed = await deleteScopeRecords(tx, writes, { scope: "group", scopeId: groupId }, eventTypes.deleted);
        await more?.remove(tx, groupId);
        return removed;
      },
    });
  }
  if (declaration.activity && eventTypes) {
    const { follows, ...source } = declaration.activity;
    registerActivitySource({ ...source, types: [eventTypes.created], ...(follows ? { follows: "types" in follows ? follows : { types: follows } } : {}) });
  }
  areas.set(declaration.area, area as AnyArea);
  return area;
}

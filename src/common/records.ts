import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { prismaDatamodel } from "./datamodel.js";
import { DatabaseBusy, decodeTimestamp, isConnectionLost, utcTimestamp, utcTimestampText, type SqlClient } from "../db/sql.js";
import { refusedInsideTransaction } from "../db/transaction-guard.js";
import { ApiError } from "./errors.js";
import { sqlOf, type RequestContext } from "./context.js";
import type { AccessLevelName, AccessLevels } from "./access.js";
import { belongsSql, belongsToRecordScopeSql, recordScopeSql, scopeKindCount, scopeKindIfRegistered, scopeSecludedSql, secludedScopeSql, type FixedScope, type RelationName, type ScopeKind, type UserRef } from "./scope-kinds.js";
import { callerClass, fold, leavesOf, policyOf, renderSql, ruleOnce, type Known, type Leaf } from "./policy.js";
import { Slot, TemplateCache } from "./sql-template.js";

/**
 * The records an area lists and reads, declared once (src/<area>/service.ts): which Prisma model, whether
 * records belong to scopes, what "published" means, the access levels, who created them. From it the kit
 * writes the one SQL statement of each read and list (src/common/paging.ts), the visibility rule in SQL,
 * and the count keys the list_counts triggers keep (docs/adding-an-area.md).
 */
export interface RecordsDeclaration {
  /** The Prisma model; its table and columns come from the generated client. */
  model: Prisma.ModelName;
  /** Records carry `scope`/`scopeId` (src/common/scope-kinds.ts); private records of a scope are its members'. */
  scoped: boolean;
  /** A record is published when this integer field holds this value (wiki and blog `state` 1). */
  published: { field: string; value: number };
  /** Published records are shown only from `up` until `down` (null: open-ended), as the blog's window. */
  window?: { up: string; down: string };
  /** Access levels, stored in the field `accessField` names (default `access`); absent: every published record is public. */
  access?: AccessLevels;
  /** The field holding the access level, when it is not `access` (groups keep it in `discoverability`). */
  accessField?: string;
  /**
   * Unscoped records that are themselves the scopes of a kind (a group is the scope `group`, its id the scope
   * id): the kind's relations are theirs. Its members see a private record (lists, totals: a hidden group), its
   * readers read it too (`ScopeKind.readers`: a hidden group's invitees, who find it in no list), its managers
   * manage it, and its events are in its own scope, so whoever may read the scope's private records learns of
   * them. Served by indexes led by the user id: totals add a user's private records up per user.
   */
  isScope?: string;
  /**
   * Fields only some readers see, null to everyone else but administrators: `members`, the members of the
   * record (`isScope`: a group's private description, to its members), masked in the read's and list's own
   * statement; `self`, the record itself (an account's e-mail address and role, to its owner), which a reader
   * knows without asking the database, so the type's fields answer it (src/graphql/area.ts). The write path
   * reads the stored values.
   */
  privateFields?: { fields: string[]; shownTo: "members" | "self" };
  /**
   * A boolean (or 0/1 integer) field that hides the record's author (anonymous posts): its events name no actor
   * but to the author and administrators, and a change of it makes who is shown as the author be decided again.
   */
  anonymous?: string;
  /** Records only administrators read (plugin records): every read, list, total and subscription finds none for anyone else. */
  administratorsOnly?: true;
  /**
   * Records shown to an audience instead of by state and level (activity entries, to their recipients):
   * `hears`, the condition over the record's id column that the user (null: anonymous callers) is in it (the
   * user's id may be a column or a placeholder, `UserRef`: decide only whether it is null, else interpolate it);
   * `total`, the exact number of one scope's records the viewer hears, as one SQL value, for a list with no other
   * condition (src/common/paging.ts; absent, or with a search or filter, the rows are counted). `published` and
   * `access` are then not asked; events say 'private'. The recipients are the area's own table, read through the
   * scope kinds' relations (src/activity/readers.ts), which is why this one part of a policy is SQL the area
   * gives: docs/decisions.md, "Activity's total" (D8).
   */
  audience?: {
    hears: (id: Prisma.Sql, userId: UserRef | null) => Prisma.Sql;
    total?: (viewer: RequestContext["viewer"], scope: { scope: string; scopeId: number }) => Prisma.Sql;
  };
  /** Creators see their own records whatever their state (the contract's rule); absent: they do not. */
  creator?: string;
  /**
   * Records under a parent record of the same kind (a forum reply under its thread, `field` its id): the creator
   * reads theirs only where they may read the parent, whose creator rule is asked plain (no recursion). A record
   * whose `root` field holds the value has no parent (a thread's starter). The parent is asked by primary key, as
   * a scalar sub-select: an EXISTS became a hashed scan of every post.
   */
  parent?: { field: string; root: { field: string; value: number } };
  /**
   * The relation to a record's scope whose holders see its every record whatever its state and level, as a
   * creator sees theirs (`managers`: a group's managers moderating its forum), as each scope kind declares it.
   * Totals count every record of such a scope for them (src/common/paging.ts).
   */
  moderatedBy?: RelationName;
  /** Columns kept for `search` only (e.g. a lower-cased copy of a text): never read. */
  searchOnly?: string[];
  /**
   * `false`: never listed, so its table has no counters (users: the declaration serves the write path's
   * answers). Every other declaration's table carries the `list_counts_track` triggers its fields name
   * (`countTriggerArguments`), checked by `npm run db:check` and test/count-triggers.test.ts.
   */
  counted?: false;
}

const declarations: RecordsDeclaration[] = [];

/** Every records declaration made so far (the areas' modules make theirs when imported: src/areas.ts). */
export const declaredRecords = (): readonly RecordsDeclaration[] => declarations;

/** Refuses a declaration the kit cannot serve (records() asks it of every declaration). */
export function checkRecordsDeclaration(declaration: RecordsDeclaration): RecordsDeclaration {
  if (declaration.isScope && declaration.scoped) throw new Error(`${declaration.model}: isScope is for unscoped records (a record in a scope is not one itself)`);
  // countedTotal (src/common/paging.ts) adds the private records a user may see to the counted ones; with a
  // window it would add them before taking off the ones outside it, so they would be counted twice.
  if (declaration.isScope && declaration.window) {
    throw new Error(`${declaration.model}: isScope and window together are not supported: the list totals would count private records twice (src/common/paging.ts, countedTotal)`);
  }
  if (declaration.parent && !declaration.creator) throw new Error(`${declaration.model}: parent narrows the creator rule, and there is no creator`);
  if (declaration.parent && !Number.isSafeInteger(declaration.parent.root.value)) throw new Error(`${declaration.model}: parent.root.value must be an integer`);
  // "self": the record is an account, its id the viewer's user id.
  if (declaration.privateFields?.shownTo === "self" && declaration.model !== "User") throw new Error(`${declaration.model}: privateFields shown to "self" are an account's (the User model's): its id is its owner's`);
  if (declaration.privateFields?.shownTo === "members" && !declaration.isScope) throw new Error(`${declaration.model}: privateFields shown to the record's members need isScope (whose members they are)`);
  return declaration;
}

/**
 * Declares an area's records (the fields are checked against the Prisma model when first used): once per
 * model, so whatever reads the declarations (the counter triggers' check) finds the one that rules.
 */
export const records = (declaration: RecordsDeclaration): RecordsDeclaration => {
  checkRecordsDeclaration(declaration);
  if (declarations.some((declared) => declared.model === declaration.model)) throw new Error(`${declaration.model}: its records are declared already; a model has one records declaration`);
  declarations.push(declaration);
  return declaration;
};

/** The field holding a declaration's access level. */
export const accessFieldOf = (declaration: RecordsDeclaration): string => declaration.accessField ?? "access";

/** Why a visibility rule is asked: a list or total (`list`), or one record's read or write (`read`). */
export type Purpose = "list" | "read";

/**
 * The kind whose scopes the records are (`isScope`), looked up when asked: kinds register before any request,
 * not necessarily before the declaration is made.
 */
export function ownKindOf(declaration: RecordsDeclaration): ScopeKind | undefined {
  if (!declaration.isScope) return undefined;
  const kind = scopeKindIfRegistered(declaration.isScope);
  // A programming error, not a caller's: test/area-declaration.test.ts checks every declaration's kind is registered.
  if (!kind) throw new Error(`${declaration.model}: isScope names the scope kind ${JSON.stringify(declaration.isScope)}, which no module registered`);
  return kind;
}

/**
 * The sub-select of unscoped record ids whose private level `userId` may see, for `purpose` (lists and totals
 * its kind's members, reads its readers: `ScopeKind.readers`); null: none.
 */
export function privateToSql(declaration: RecordsDeclaration, userId: UserRef, purpose: Purpose): Prisma.Sql | null {
  const kind = ownKindOf(declaration);
  return (purpose === "read" ? readersOf(kind) : kind?.members)?.scopesOf(userId) ?? null;
}

/** Who reads a record that is a scope of `kind` where it is private: the kind's readers, else its members. */
const readersOf = (kind: ScopeKind | undefined) => kind?.readers ?? kind?.members;

/**
 * The users who read the record `recordId` where it is private (the inverse of `privateToSql` for reads: a
 * group's members and invitees), as a sub-select: a deletion's event keeps them, for the memberships go with the
 * record, and who is told of a gone record is decided when its event is delivered (docs/policy-design.md, D14).
 */
export function recordReadersSql(declaration: RecordsDeclaration, recordId: Prisma.Sql): Prisma.Sql | null {
  return readersOf(ownKindOf(declaration))?.usersOf(recordId) ?? null;
}

/** The sub-select of the records `userId` manages as records of their own (`isScope`: the kind's managers); null: none. */
export function recordsManagedSql(declaration: RecordsDeclaration, userId: UserRef): Prisma.Sql | null {
  return ownKindOf(declaration)?.managers?.scopesOf(userId) ?? null;
}

/**
 * The scope a record's events and activity are in, over its fields (`field`: a column of the statement): its
 * scope columns; for a record that is a scope (`isScope`), its own kind and id; else the site.
 */
export function recordEventScope(declaration: RecordsDeclaration, field: (name: string) => Prisma.Sql): { scope: Prisma.Sql; scopeId: Prisma.Sql } {
  if (declaration.scoped) return { scope: field("scope"), scopeId: field("scopeId") };
  return { scope: Prisma.sql`${declaration.isScope ?? "site"}::text`, scopeId: declaration.isScope ? field("id") : Prisma.sql`0` };
}

// ---------------------------------------------------------------------------------------------------
// The model: table and column names (Prisma's runtime data model) and relations (Pothos' DMMF copy).

export interface FieldInfo {
  name: string;
  column: string;
  kind: string;
  type: string;
  isList: boolean;
  isRequired: boolean;
  /** To-one relations held by this model: the scalar field holding the other record's id. */
  from?: string;
  /** Prisma's @updatedAt: the write path sets it to the transaction's time on every update. */
  isUpdatedAt: boolean;
}

export interface ModelInfo {
  name: string;
  table: string;
  fields: Map<string, FieldInfo>;
  scalars: FieldInfo[];
}

interface RuntimeDataModel {
  models: Record<string, { dbName: string | null; fields: { name: string; kind: string; type: string; dbName?: string | null }[] }>;
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
let models: Map<string, ModelInfo> | undefined;

/** Every model's table, columns and relations; the same for every client of this generated schema. */
export function modelInfo(prisma: PrismaClient, model: string): ModelInfo {
  if (!models) {
    // The generated client keeps the data model on each instance only (no export); it is the schema's.
    const runtime = (prisma as unknown as { _runtimeDataModel?: RuntimeDataModel })._runtimeDataModel;
    if (!runtime?.models) throw new Error("the Prisma client exposes no runtime data model (src/common/records.ts)");
    const relations = prismaDatamodel().datamodel.models;
    models = new Map();
    for (const [name, definition] of Object.entries(runtime.models)) {
      const related = new Map(relations[name]?.fields.map((field) => [field.name, field]));
      const fields = definition.fields.map((field): FieldInfo => {
        const column = field.dbName ?? field.name;
        if (!identifier.test(column)) throw new Error(`${name}.${field.name}: column name ${column} needs quoting rules the kit does not have`);
        const dmmf = related.get(field.name);
        const from = dmmf?.relationFromFields?.length === 1 ? dmmf.relationFromFields[0] : undefined;
        return {
          name: field.name,
          column,
          kind: field.kind,
          type: field.type,
          isList: dmmf?.isList ?? false,
          isRequired: dmmf?.isRequired ?? false,
          from,
          isUpdatedAt: (dmmf as { isUpdatedAt?: boolean } | undefined)?.isUpdatedAt ?? false,
        };
      });
      models.set(name, {
        name,
        table: definition.dbName ?? name,
        fields: new Map(fields.map((field) => [field.name, field])),
        scalars: fields.filter((field) => field.kind !== "object"),
      });
    }
  }
  const found = models.get(model);
  if (!found) throw new Error(`no Prisma model ${model}`);
  return found;
}

/** `alias."column"` of a scalar field, checked against the model. */
export function column(info: ModelInfo, alias: string, field: string): Prisma.Sql {
  const found = info.fields.get(field);
  if (!found || found.kind === "object") throw new Error(`${info.name} has no scalar field ${field}`);
  return Prisma.raw(`${alias}."${found.column}"`);
}

export const table = (info: ModelInfo, alias: string) => Prisma.raw(`"${info.table}" ${alias}`);

// ---------------------------------------------------------------------------------------------------
// Reading rows in the shape Prisma would give them, relations included, in the same statement.

/** What Pothos' Prisma plugin asks to load for the selected GraphQL fields. */
export type Selection = { include?: Record<string, unknown>; select?: Record<string, unknown> };

interface SelectionPlan {
  info: ModelInfo;
  /** To-one relations read in the same statement (a JSON sub-select each). */
  joined: Map<string, SelectionPlan>;
  /** Everything else (lists of related records, relation counts, filtered relations): one Prisma query for the page. */
  rest: Record<string, unknown> | null;
}

function planSelection(prisma: PrismaClient, info: ModelInfo, query: Selection | undefined, omit: readonly string[] = []): SelectionPlan & { omit: readonly string[] } {
  const plan: SelectionPlan & { omit: readonly string[] } = { info, joined: new Map(), rest: null, omit };
  const wanted = { ...(query?.select ?? {}), ...(query?.include ?? {}) };
  for (const [key, value] of Object.entries(wanted)) {
    if (!value) continue;
    const field = info.fields.get(key);
    if (field && field.kind !== "object") continue; // every scalar is read anyway
    const nested = value === true ? {} : (value as Record<string, unknown>);
    const plainNesting = Object.keys(nested).every((option) => option === "include" || option === "select");
    if (field && !field.isList && field.from && plainNesting) {
      const inner = planSelection(prisma, modelInfo(prisma, field.type), nested as Selection);
      if (!inner.rest) {
        plan.joined.set(key, inner);
        continue;
      }
    }
    plan.rest = { ...plan.rest, [key]: value };
  }
  return plan;
}

/**
 * The select list: every scalar column under its field name, and each joined relation as one JSON value.
 * `masked`: fields answered only where their condition holds (null elsewhere).
 */
function selectList(plan: SelectionPlan & { omit?: readonly string[] }, alias: string, masked?: Map<string, Prisma.Sql>): Prisma.Sql {
  const parts = plan.info.scalars
    .filter((field) => !plan.omit?.includes(field.name))
    .map((field) => {
      const value = Prisma.raw(`${alias}."${field.column}"`);
      const condition = masked?.get(field.name);
      return condition ? Prisma.sql`CASE WHEN ${condition} THEN ${value} END AS ${Prisma.raw(`"${field.name}"`)}` : Prisma.raw(`${alias}."${field.column}" AS "${field.name}"`);
    });
  return Prisma.join([...parts, ...relationColumns(plan, alias, (from) => from.column)], ", ");
}

/**
 * Each joined to-one relation as one JSON value, read by id from its table, or from the WITH entry
 * `sources` names for it (a row the same statement inserts, RETURNING `*`). `parentKey`: how the
 * parent row (`alias`) names the relation's key field: its column (a table) or its field name (`created`).
 */
function relationColumns(plan: SelectionPlan, alias: string, parentKey: (from: FieldInfo) => string, sources: Record<string, string> = {}): Prisma.Sql[] {
  let index = 0;
  return [...plan.joined].map(([name, inner]) => {
    const field = plan.info.fields.get(name)!;
    const other = `${alias}_${++index}`;
    const from = plan.info.fields.get(field.from!)!;
    const id = [...inner.info.fields.values()].find((candidate) => candidate.name === "id");
    if (!id) throw new Error(`${inner.info.name}: relations are read by id, and it has none`);
    const source = sources[name] ? Prisma.raw(`${sources[name]} ${other}`) : table(inner.info, other);
    return Prisma.sql`(SELECT row_to_json(related) FROM (SELECT ${selectList(inner, other)} FROM ${source} WHERE ${Prisma.raw(
      `${other}."${id.column}" = ${alias}."${parentKey(from)}"`,
    )}) related) AS ${Prisma.raw(`"${name}"`)}`;
  });
}

/**
 * A create's answer, read in the create's own statement (src/common/write-path.ts, `createRecord`): the
 * new record's scalars as its `created` entry RETURNs them (by field name) and the to-one relations
 * `query` selects, from their tables or, for rows the same statement inserts (a page's first revision),
 * from the WITH entry `inserted` names for them. So a create costs one round trip, not a second one to
 * read what it wrote. Null when that read would not be the caller's read: the selection needs more than
 * to-one relations (lists, counts), or some fields are masked for this reader (`privateFields`).
 */
export function createdAnswer(
  prisma: PrismaClient,
  declaration: RecordsDeclaration,
  query: Selection,
  viewer: RequestContext["viewer"],
  inserted: Record<string, string> = {},
): { columns: Prisma.Sql[]; decode(row: Record<string, unknown>): Record<string, unknown> } | null {
  const info = modelInfo(prisma, declaration.model);
  const plan = planSelection(prisma, info, query, declaration.searchOnly);
  if (plan.rest || privateFieldMasks(info, declaration, viewer, "created")) return null;
  return { columns: relationColumns(plan, "created", (from) => from.name, inserted), decode: (row) => decode(plan, row) };
}

/**
 * Whether the caller reads a record they have just created, without asking the database: administrators
 * read everything, and creators their own records (the contract's rule; the visibility SQL says the same).
 * Otherwise a read after the create decides (`createdRecord`).
 */
export function readsOwnCreation(declaration: RecordsDeclaration, viewer: RequestContext["viewer"], row: Record<string, unknown>): boolean {
  if (!viewer.user) return false;
  return viewer.user.isAdmin || (declaration.creator !== undefined && row[declaration.creator] === viewer.user.id);
}

/** A row of every scalar read by plain SQL (INSERT/UPDATE … RETURNING) into what Prisma returns. */
export const decodeScalars = <Row>(info: ModelInfo, row: Record<string, unknown>): Row => decode({ info, joined: new Map(), rest: null }, row) as Row;

/** Timestamps and JSON-read relations into what Prisma returns (Date objects). */
function decode(plan: SelectionPlan, row: Record<string, unknown>): Record<string, unknown> {
  for (const field of plan.info.scalars) {
    if (field.type !== "DateTime") continue;
    const value = row[field.name];
    if (typeof value === "string") row[field.name] = decodeTimestamp(value);
    else if (Array.isArray(value)) row[field.name] = value.map((item) => (typeof item === "string" ? decodeTimestamp(item) : item));
  }
  for (const [name, inner] of plan.joined) {
    const value = row[name];
    if (value && typeof value === "object") decode(inner, value as Record<string, unknown>);
  }
  return row;
}

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);

/** A statement that reads records, and what turns its rows into Prisma-shaped records. */
export interface RowsStatement<Row> {
  sql: Prisma.Sql;
  /** `finish` loads relations beyond to-one ones through Prisma: not inside a write transaction (it would wait for it on PGlite). */
  needsPrisma: boolean;
  /** Decodes the rows; relations beyond to-one ones (lists, counts) cost one Prisma query for all rows together. */
  finish(rows: Record<string, unknown>[]): Promise<Row[]>;
}

/**
 * One statement reading records as Prisma would return them, with the to-one relations `query` selects:
 * `where`, `orderBy` and `extra` (more select-list items) are SQL over the alias `t`.
 */
export function rowsStatement<Row>(
  prisma: PrismaClient,
  declaration: RecordsDeclaration,
  query: Selection | undefined,
  statement: {
    where: Prisma.Sql;
    orderBy?: Prisma.Sql;
    limit?: number;
    offset?: number;
    extra?: Prisma.Sql;
    lock?: boolean;
    /** Who reads: their `privateFields` are masked (absent: the stored values, as the write path needs). */
    viewer?: RequestContext["viewer"];
  },
): RowsStatement<Row> {
  const info = modelInfo(prisma, declaration.model);
  const plan = planSelection(prisma, info, query, declaration.searchOnly);
  const sql = Prisma.sql`SELECT ${selectList(plan, "t", statement.viewer ? privateFieldMasks(info, declaration, statement.viewer, "t") : undefined)}${statement.extra ? Prisma.sql`, ${statement.extra}` : Prisma.empty} FROM ${table(info, "t")} WHERE ${
    statement.where
  }${statement.orderBy ? Prisma.sql` ORDER BY ${statement.orderBy}` : Prisma.empty}${
    statement.limit !== undefined ? Prisma.sql` LIMIT ${statement.limit}` : Prisma.empty
  }${statement.offset ? Prisma.sql` OFFSET ${statement.offset}` : Prisma.empty}${statement.lock ? Prisma.sql` FOR UPDATE OF t` : Prisma.empty}`;
  return {
    sql,
    needsPrisma: plan.rest !== null,
    async finish(found) {
      const rows = found.map((row) => decode(plan, row));
      if (plan.rest && rows.length) {
        const delegate = (prisma as unknown as Record<string, { findMany(args: object): Promise<Record<string, unknown>[]> }>)[lowerFirst(info.name)]!;
        const related = await delegate.findMany({ where: { id: { in: rows.map((row) => row.id) } }, select: { id: true, ...plan.rest } });
        const byId = new Map(related.map((row) => [row.id, row]));
        for (const row of rows) Object.assign(row, byId.get(row.id));
      }
      return rows as Row[];
    },
  };
}

/**
 * The version of a record read with its `privateFields` masked for the reader: the same row version, told
 * apart so the ETag differs by what the caller may see (one who becomes a member and revalidates is answered
 * 200 with the fields, not 304). If-Match takes either form (src/common/write-path.ts, `etagMatches`).
 */
export const maskedVersion = (version: string) => `${version}-masked`;

/**
 * Whether `viewer` is shown the private field `field` of the record `recordId` where a reader knows it without
 * the database (`privateFields.shownTo` "self"); undefined where the statement masks it instead (or it is not
 * private).
 */
export function privateFieldShown(declaration: RecordsDeclaration, field: string, viewer: RequestContext["viewer"], recordId: number): boolean | undefined {
  const privateFields = declaration.privateFields;
  if (!privateFields?.fields.includes(field) || privateFields.shownTo !== "self") return undefined;
  return viewer.user !== null && (viewer.user.isAdmin || viewer.user.id === recordId);
}

/** Each private field's condition for this reader (none for administrators; false for anonymous callers). */
function privateFieldMasks(info: ModelInfo, declaration: RecordsDeclaration, viewer: RequestContext["viewer"], alias: string): Map<string, Prisma.Sql> | undefined {
  const privateFields = declaration.privateFields;
  if (!privateFields || viewer.user?.isAdmin) return undefined;
  const members = viewer.user && privateFields.shownTo === "members" ? privateToSql(declaration, viewer.user.id, "list") : null;
  const shown =
    viewer.user && privateFields.shownTo === "self"
      ? Prisma.sql`${column(info, alias, "id")} = ${viewer.user.id}`
      : members
        ? Prisma.sql`${column(info, alias, "id")} IN (${members})`
        : Prisma.sql`FALSE`;
  return new Map(privateFields.fields.map((field) => [field, shown]));
}

// ---------------------------------------------------------------------------------------------------
// Visibility: the contract's access rule in SQL.

/**
 * Whom a rule is asked about: an anonymous caller (`user` null) or a user, an administrator reading
 * everything. A request's viewer is one; so is "each of these users", whose id is a column of the statement
 * (`UserRef`): the rule's SQL is the same for every signed-in user who is not an administrator.
 */
export interface RuleViewer {
  user: { id: UserRef; isAdmin: boolean } | null;
}

const inList = (expression: Prisma.Sql, values: readonly number[]) =>
  values.length ? Prisma.sql`${expression} IN (${Prisma.join(values)})` : Prisma.sql`FALSE`;

/** Published and, for windowed records, inside the window at `now` (a moment, or one as SQL: a template's slot). */
export function publishedSql(info: ModelInfo, declaration: RecordsDeclaration, alias: string, now: Date | Prisma.Sql): Prisma.Sql {
  return publishedOver(declaration, (field) => column(info, alias, field), now instanceof Date ? utcTimestamp(now) : now);
}

/** Published and, for windowed records, inside the window at `at`, over the fields as `fieldSql` gives them. */
export function publishedOver(declaration: RecordsDeclaration, fieldSql: (field: string) => Prisma.Sql, at: unknown): Prisma.Sql {
  const published = Prisma.sql`${fieldSql(declaration.published.field)} = ${declaration.published.value}`;
  if (!declaration.window) return published;
  const up = fieldSql(declaration.window.up);
  const down = fieldSql(declaration.window.down);
  return Prisma.sql`${published} AND ${up} <= ${at} AND (${down} IS NULL OR ${down} > ${at})`;
}

/**
 * What the caller may see (the contract's "Access"), as the declaration's rule (src/common/policy.ts) reads it
 * over the row `alias`: administrators everything, creators their own records, moderators their scopes', everyone
 * else published records at a level they qualify for, outside the scopes secluded from them (a hidden group's
 * records, to whoever is not its member: the scope kind's `secluded`). `listScope`: the scope a list fixes, so
 * only its kind's membership is asked and whether it is secluded once per statement; lists of kinds that seclude
 * nothing get no condition for it.
 */
export function visibleSql(
  prisma: PrismaClient,
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  alias = "t",
  now = new Date(),
  listScope?: FixedScope,
  purpose: Purpose = "read",
  /** The creator rule without its `parent` (how the parent is read: no recursion). */
  plainCreator = false,
): Prisma.Sql {
  return questionSql(declaration, `visible ${alias} ${purpose} ${plainCreator}`, { viewer, now, listScope }, ({ viewer, at, listScope }) =>
    renderVisible(prisma, declaration, viewer, alias, at, listScope, purpose, plainCreator),
  )!;
}

function renderVisible(prisma: PrismaClient, declaration: RecordsDeclaration, viewer: RuleViewer, alias: string, at: Prisma.Sql, listScope: FixedScope | undefined, purpose: Purpose, plainCreator: boolean) {
  const leaves = rowLeaves(modelInfo(prisma, declaration.model), declaration, viewer, alias, at, listScope, purpose, plainCreator, prisma);
  return renderSql(fold(policyOf(declaration).visible, leaves.known), leaves.sql, { enclosed: true });
}

const VIEWER_ID = new Slot("the viewer's id");
const MOMENT = new Slot("the moment");
const NEXT_MIDNIGHT = new Slot("the next UTC midnight");
const LISTED_SCOPE_ID = new Slot("the listed scope's id");
const questionTemplates = new TemplateCache<RecordsDeclaration>();

/** What a rule's SQL is asked about: a viewer, at a moment, in a list of one scope or not. */
export interface Question {
  viewer: RuleViewer;
  now: Date;
  listScope?: FixedScope;
}

/** A question as its SQL is rendered once for every question of its shape: the values that differ are slots. */
export interface QuestionSlots {
  viewer: RuleViewer;
  /** The moment, as a `timestamp(3)`. */
  at: Prisma.Sql;
  /** The UTC midnight after the moment, as a `timestamp(3)` (the totals' day buckets). */
  nextMidnight: Prisma.Sql;
  listScope: FixedScope | undefined;
}

/**
 * SQL about one declaration's records for a question (a rule's condition, a list's total), rendered once per
 * shape (`shape`: what the SQL is and over which alias; the viewer's class: anonymous, a user, an administrator;
 * the listed scope's kind; the scope kinds registered) and filled with the question's values after: the viewer's
 * id, the moment, the listed scope's id (src/common/sql-template.ts). `render` gets them as slots and must only
 * interpolate them, each as a value of its own (not inside an array): whatever it decides, the key must name.
 */
export function questionSql(declaration: RecordsDeclaration, shape: string, question: Question, render: (slots: QuestionSlots) => Prisma.Sql | null): Prisma.Sql | null {
  const { viewer, now, listScope } = question;
  const user = viewer.user;
  const key = `${shape} ${callerClass(user)} ${listScope?.scope ?? "-"} ${scopeKindCount()}`;
  return questionTemplates.filled(
    declaration,
    key,
    () =>
      render({
        viewer: { user: user && { id: VIEWER_ID as unknown as UserRef, isAdmin: user.isAdmin } },
        at: Prisma.sql`${MOMENT}::timestamp(3)`,
        nextMidnight: Prisma.sql`${NEXT_MIDNIGHT}::timestamp(3)`,
        listScope: listScope && { scope: listScope.scope, scopeId: LISTED_SCOPE_ID as unknown as number },
      }),
    (slot) => {
      if (slot === VIEWER_ID) return user!.id;
      if (slot === MOMENT) return utcTimestampText(now);
      if (slot === NEXT_MIDNIGHT) return utcTimestampText(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)));
      if (slot === LISTED_SCOPE_ID) return listScope!.scopeId;
      throw new Error(`questionSql has no value for ${slot.name}`);
    },
  );
}

/**
 * What a list's total asks of the caller beyond the counters (src/common/paging.ts, countedTotal;
 * src/common/cached-totals.ts), by the leaves the rule still asks once who they are is known: about the list's
 * scope, decided once per statement (`once`, in this order — the cases of a caller who moderates the scope or is
 * secluded from it are the simplest —: moderates it, is secluded from it, belongs to it), and about each row
 * (`perRow`: membership of unscoped records private to some users, `privateToSql`). `known(own)` is
 * what a total knows of the rule for the others' rows (`own` false) or the caller's own (true); a total of an
 * audience's records is counted otherwise (paging.ts, listStatements), so `hears` is false.
 */
export function totalQuestions(
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  scope: FixedScope | null,
): { once: Map<Leaf, Prisma.Sql>; privateTo: Prisma.Sql | null; perRow: Leaf[]; known(own: boolean): Known } {
  const user = viewer.user;
  const asked = ruleOnce(declaration, `total asks ${callerClass(user)}`, () =>
    leavesOf(fold(policyOf(declaration).visible, (leaf) => (leaf === "administrator" ? (user?.isAdmin ?? false) : leaf === "signedIn" ? user !== null : leaf === "own" ? false : undefined))),
  );
  const once = new Map<Leaf, Prisma.Sql>();
  const inScope = scope && declaration.scoped ? scope : null;
  const moderates = user && inScope && asked.includes("moderates") ? moderatedScopeSql(declaration, user.id, Prisma.sql`${inScope.scope}::text`, Prisma.sql`${inScope.scopeId}::int`) : null;
  if (moderates) once.set("moderates", moderates);
  const secluded = inScope && asked.includes("secluded") ? scopeSecludedSql(inScope, user?.id ?? null) : null;
  if (secluded) once.set("secluded", secluded);
  const member = user && inScope && asked.includes("member") ? belongsSql(inScope.scope, Prisma.sql`${inScope.scopeId}`, user.id) : null;
  if (member) once.set("member", member);
  const privateTo = user && !declaration.scoped && asked.includes("member") ? privateToSql(declaration, user.id, "list") : null;
  const perRow: Leaf[] = privateTo ? ["member"] : [];
  return {
    once,
    privateTo,
    perRow,
    known: (own) => (leaf) => {
      if (leaf === "administrator") return user?.isAdmin ?? false;
      if (leaf === "signedIn") return user !== null;
      if (leaf === "own") return own;
      if (leaf === "hears") return false;
      if (leaf === "moderates" || leaf === "member" || leaf === "secluded") return once.has(leaf) || perRow.includes(leaf) ? undefined : false;
      return undefined;
    },
  };
}

/**
 * Who may change (update, delete) a record, as SQL over its row at `alias` (the write path evaluates it on
 * the locked row): the declaration's `manages` rule — administrators, its creator, whoever its scope's kind says
 * manages the scope, its own managers (`isScope`: the kind's managers). `lock` (default): asked inside a write, the kind's managers
 * locked; unlocked, who hears a record's events for its managers (`readableBy`, for many viewers at once: the
 * viewer's id may be a column).
 */
export function managesSql(info: ModelInfo, declaration: RecordsDeclaration, alias: string, viewer: RuleViewer, { lock = true }: { lock?: boolean } = {}): Prisma.Sql {
  return questionSql(declaration, `manages ${alias} ${lock}`, { viewer, now: new Date() }, ({ viewer, at }) => {
    const leaves = rowLeaves(info, declaration, viewer, alias, at, undefined, "read", true, undefined, lock);
    return renderSql(fold(policyOf(declaration).manages, leaves.known), leaves.sql, { enclosed: true });
  })!;
}

/**
 * The condition a search index's row needs (issue 31): the record `recordId` (an expression of the index's
 * statement) still exists and the caller may find it in a list now, by the area's own rule decided on the live
 * record — so an index that lags a change of access, state, scope, membership or deletion shows less, never
 * more. One primary-key probe per candidate.
 */
export function searchConditionSql(prisma: PrismaClient, declaration: RecordsDeclaration, viewer: RuleViewer, recordId: Prisma.Sql, now = new Date()): Prisma.Sql {
  const info = modelInfo(prisma, declaration.model);
  return Prisma.sql`EXISTS (SELECT 1 FROM ${table(info, "searched")} WHERE ${column(info, "searched", "id")} = ${recordId} AND ${visibleSql(prisma, declaration, viewer, "searched", now, undefined, "list")})`;
}

/**
 * The creator rule for the signed-in viewer, over the record's alias: their own record, and what
 * its `parent` asks too (a forum reply: its thread readable to them). Null without a creator field. The
 * list totals count the viewer's own rows by it (src/common/cached-totals.ts).
 */
export function ownRecordSql(
  prisma: PrismaClient,
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  alias: string,
  now: Date,
  listScope?: FixedScope,
  purpose: Purpose = "read",
  plainCreator = false,
): Prisma.Sql | null {
  return questionSql(declaration, `own ${alias} ${purpose} ${plainCreator}`, { viewer, now, listScope }, ({ viewer, at, listScope }) => {
    const leaves = rowLeaves(modelInfo(prisma, declaration.model), declaration, viewer, alias, at, listScope, purpose, plainCreator, prisma);
    const own = fold(policyOf(declaration).own, leaves.known);
    return own === false ? null : renderSql(own, leaves.sql);
  });
}

/**
 * The row interpreter of the rule: each leaf over the row `alias` for `viewer`, known (a boolean) where the
 * viewer or the declaration decides it, SQL otherwise. (Exported for the totals, which count some rows.)
 */
export function rowLeaves(
  info: ModelInfo,
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  alias: string,
  /** The moment the rule is asked at, as SQL (a window's bounds are compared with it). */
  at: Prisma.Sql,
  listScope: FixedScope | undefined,
  purpose: Purpose,
  plainCreator: boolean,
  prisma?: PrismaClient,
  /** Inside a write: the scope kind's managers asked locked (`lockedFor`). */
  lock = false,
): { known: Known; sql: (leaf: Leaf) => Prisma.Sql } {
  const user = viewer.user;
  const scope = () => column(info, alias, "scope");
  const scopeId = () => column(info, alias, "scopeId");
  const memo = new Map<string, Prisma.Sql | boolean>();
  const decide = (leaf: Exclude<Leaf, { level: unknown }>): Prisma.Sql | boolean => {
    if (memo.has(leaf)) return memo.get(leaf)!;
    const value = ((): Prisma.Sql | boolean => {
      switch (leaf) {
        case "administrator":
          return user?.isAdmin ?? false;
        case "signedIn":
          return user !== null;
        case "own":
          return user && declaration.creator ? Prisma.sql`${column(info, alias, declaration.creator)} = ${user.id}` : false;
        case "parentReadable": {
          const parent = declaration.parent;
          if (plainCreator || !parent) return true;
          const other = `${alias}_parent`;
          return Prisma.sql`(${column(info, alias, parent.root.field)} = ${Prisma.raw(String(parent.root.value))} OR COALESCE((SELECT TRUE FROM ${table(info, other)} WHERE ${column(info, other, "id")} = ${column(
            info,
            alias,
            parent.field,
          )} AND ${renderVisible(prisma!, declaration, viewer, other, at, listScope, purpose, true)}), FALSE))`;
        }
        case "moderates":
          return (user && declaration.scoped && moderatedScopeSql(declaration, user.id, scope(), scopeId())) || false;
        case "hears":
          return declaration.audience ? declaration.audience.hears(column(info, alias, "id"), user?.id ?? null) : false;
        case "published":
          return publishedSql(info, declaration, alias, at);
        case "member": {
          if (!user) return false;
          const privateTo = privateToSql(declaration, user.id, purpose);
          if (privateTo) return Prisma.sql`${column(info, alias, "id")} IN (${privateTo})`;
          return (declaration.scoped && belongsToRecordScopeSql(scope(), scopeId(), user.id, listScope?.scope)) || false;
        }
        case "managesScope":
          return (user && declaration.scoped && recordScopeSql(scope(), scopeId(), "managers", user.id, { lock })) || false;
        case "managesRecord": {
          const managed = user && recordsManagedSql(declaration, user.id);
          return managed ? Prisma.sql`${column(info, alias, "id")} IN (${managed})` : false;
        }
        case "secluded":
          return (declaration.scoped && secludedScopeSql(scope(), scopeId(), user?.id ?? null, listScope)) || false;
      }
    })();
    memo.set(leaf, value);
    return value;
  };
  const levelValues = (leaf: { level: readonly AccessLevelName[] }) => leaf.level.flatMap((level) => declaration.access?.valuesOf(level) ?? []);
  return {
    known: (leaf) => {
      if (typeof leaf === "object") return levelValues(leaf).length ? undefined : false;
      const value = decide(leaf);
      return typeof value === "boolean" ? value : undefined;
    },
    sql: (leaf) => {
      if (typeof leaf === "object") return inList(column(info, alias, accessFieldOf(declaration)), levelValues(leaf));
      const value = decide(leaf);
      if (typeof value === "boolean") throw new Error(`the rule's ${leaf} was known (${value}) and folded away`);
      return value;
    },
  };
}

/** Whether the user moderates the scope (`moderatedBy`: they see every record of it), or null for records no one moderates. */
export function moderatedScopeSql(declaration: RecordsDeclaration, userId: UserRef, scope: Prisma.Sql, scopeId: Prisma.Sql): Prisma.Sql | null {
  return declaration.moderatedBy ? recordScopeSql(scope, scopeId, declaration.moderatedBy, userId) : null;
}

/**
 * The condition that keeps a request confined to the scope its path names (`RequestContext.confinedTo`,
 * set by a group plugin path): a record of another scope is not there for it. TRUE when unconfined.
 */
export function confinementSql(ctx: RequestContext, declaration: RecordsDeclaration, alias = "t"): Prisma.Sql {
  if (!ctx.confinedTo) return Prisma.sql`TRUE`;
  // An unscoped record belongs to no group: a confined request never finds one.
  if (!declaration.scoped) return Prisma.sql`FALSE`;
  const info = modelInfo(ctx.db, declaration.model);
  return Prisma.sql`${column(info, alias, "scope")} = ${ctx.confinedTo.scope} AND ${column(info, alias, "scopeId")} = ${ctx.confinedTo.scopeId}`;
}

/**
 * A record the caller may see, read with the relations `query` selects, in one statement; null when hidden
 * or absent. `id`: the record's id, or a condition over the alias `t` naming one record by another unique
 * key (a group's cn).
 */
export async function findVisible<Row>(ctx: RequestContext, declaration: RecordsDeclaration, id: number | Prisma.Sql, query?: Selection): Promise<Row | null> {
  const info = modelInfo(ctx.db, declaration.model);
  const named = typeof id === "number" ? Prisma.sql`${column(info, "t", "id")} = ${id}` : id;
  const masks = privateFieldMasks(info, declaration, ctx.viewer, "t");
  const masked = masks ? Prisma.sql`, NOT COALESCE(${[...masks.values()][0]!}, FALSE) AS "__masked"` : Prisma.empty;
  const statement = rowsStatement<Row & { __version?: string; __masked?: boolean }>(ctx.db, declaration, query, {
    where: Prisma.sql`${named} AND ${visibleSql(ctx.db, declaration, ctx.viewer)} AND ${confinementSql(ctx, declaration)}`,
    viewer: ctx.viewer,
    extra: Prisma.sql`t.xmin::text AS "__version"${masked}`,
  });
  if (ctx.tx && statement.needsPrisma) throw refusedInsideTransaction(`${declaration.model}: a read inside a write transaction may select to-one relations only (the rest loads through Prisma)`);
  const [row] = await statement.finish(await sqlOf(ctx).query(statement.sql));
  if (!row) {
    ctx.conditions.answered(undefined);
    return null;
  }
  // The row's version (every update changes xmin): the ETag of REST record answers, checked by If-Match.
  // Another one when its private fields were masked for this reader, who may see them later at the same version.
  ctx.conditions.answered(row.__masked ? maskedVersion(row.__version!) : row.__version!);
  delete row.__version;
  delete row.__masked;
  return row;
}

/**
 * What an update answers: the changed record if the caller may read it, else null. Managing is not
 * reading (a scope's manager may change a member's draft but not see it), and an update never hands back
 * what the caller could not read (issue 7); the change itself is done either way.
 */
export async function changedRecord<Row>(ctx: RequestContext, declaration: RecordsDeclaration, id: number, query?: Selection): Promise<Row | null> {
  return readAfterWrite(ctx, id, () => findVisible<Row>(ctx, declaration, id, query));
}

/**
 * The read that answers a committed write. The write is made, so a database that is busy or dropped the
 * connection for a moment must not turn it into a 503 ("nothing was kept"): the read is tried again, a few
 * times over about a second; should it still fail, the answer says the write was made.
 */
async function readAfterWrite<T>(ctx: RequestContext, id: number, read: () => Promise<T>): Promise<T> {
  // Inside a keyed operation's transaction (src/execution/conditions.ts) the write is not made until it
  // commits: a failed read undoes it with the rest, and its error says what the database said.
  if (ctx.tx) return read();
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const busy = error instanceof DatabaseBusy || (error as { status?: number })?.status === 503 || isConnectionLost(error);
      if (!busy) throw error;
      if (attempt === 5) throw new ApiError(500, `The write was made (record ${id}), but reading it back failed while the database was unavailable: read it again.`);
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}

/**
 * Creates answered in their own statement (`createRecord` with an `answer`), with the selection they were
 * read for: `createdRecord` hands one back as it is only for that same selection, and reads otherwise.
 */
export const answeredCreates = new WeakMap<object, Selection>();

/**
 * What a create answers: the new record as the caller reads it (its creator, or an administrator, always
 * may). `created`: what `createRecord` answered; when that is already the answer (read in the create's own
 * statement), no second statement reads it again.
 */
export async function createdRecord<Row>(ctx: RequestContext, declaration: RecordsDeclaration, created: number | { id: number }, query?: Selection): Promise<Row> {
  if (typeof created === "object" && query !== undefined && answeredCreates.get(created) === query) return created as Row;
  const id = typeof created === "number" ? created : created.id;
  const row = await readAfterWrite(ctx, id, () => findVisible<Row>(ctx, declaration, id, query));
  if (!row) throw new Error(`${declaration.model} ${id} was created but cannot be read back`);
  return row;
}


// ---------------------------------------------------------------------------------------------------
// Counts: what the list_counts triggers keep for a table, in list_counts and, for windowed records,
// list_count_days (see the latest migration that defines list_counts_track).

/**
 * Removes a deleted scope's count rows (list_counts, list_count_days): its records are gone with it, and the
 * rows the triggers brought down to zero would otherwise stay for ever (issue 32). Called in the deleting
 * transaction after the records (a group's `writes.removes`, src/groups/area.ts); a write racing the deletion is refused by its scope check
 * (recordScopeExistsSql), so no count comes back. The scope's list_versions rows stay: a cached total is
 * keyed by them, and a scope's id is never given again.
 */
export async function forgetScopeCounts(sql: SqlClient, scope: { scope: string; scopeId: number }): Promise<void> {
  await sql.query(Prisma.sql`DELETE FROM list_counts WHERE scope = ${scope.scope} AND scope_id = ${scope.scopeId}`);
  await sql.query(Prisma.sql`DELETE FROM list_count_days WHERE scope = ${scope.scope} AND scope_id = ${scope.scopeId}`);
}

/**
 * Where the counter triggers of the declared tables disagree with their declarations, in a database
 * `query` reaches: one line per table that differs, and the statements a migration needs to bring them
 * in line (`list_counts_track` replaces a table's triggers). Migrations stay as written; `npm run
 * db:check` fails on a difference, and `npm run db:migration` writes the statements.
 */
export async function countTriggerDifferences(
  query: (sql: string) => Promise<Record<string, unknown>[]>,
  prisma: PrismaClient,
  declared: readonly RecordsDeclaration[] = declaredRecords(),
): Promise<{ differences: string[]; statements: string[] }> {
  const rows = await query(
    `SELECT c.relname AS "table", t.tgname AS name, encode(t.tgargs, 'escape') AS args FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = 'public'::regnamespace AND t.tgname LIKE '%\\_list\\_counts\\_%' ORDER BY 1, 2`,
  );
  const differences: string[] = [];
  const statements: string[] = [];
  for (const declaration of declared) {
    if (declaration.counted === false) continue;
    const table = modelInfo(prisma, declaration.model).table;
    const expected = countTriggerArguments(prisma, declaration);
    const found = rows.filter((row) => row.table === table).map((row) => ({ name: String(row.name), args: String(row.args).split("\\000").slice(0, -1) }));
    const names = found.map((trigger) => trigger.name);
    const wrong = found.filter((trigger) => JSON.stringify(trigger.args) !== JSON.stringify(expected));
    const wanted = ["delete", "insert", "update"].map((event) => `${table}_list_counts_${event}`);
    if (JSON.stringify(names) === JSON.stringify(wanted) && !wrong.length) continue;
    const now = found.length ? `${names.join(", ")} with (${[...new Set(found.map((trigger) => trigger.args.join(", ")))].join(") / (")})` : "no counter triggers";
    differences.push(`${declaration.model} (${table}): the declaration names (${expected.join(", ")}); the database has ${now}`);
    statements.push(`SELECT list_counts_track(${[table, ...expected].map((value, index) => (index === 2 ? value : `'${value}'`)).join(", ")});`);
  }
  return { differences, statements };
}

/** The arguments `list_counts_track` must have been called with for this table. */
export function countTriggerArguments(prisma: PrismaClient, declaration: RecordsDeclaration): string[] {
  const info = modelInfo(prisma, declaration.model);
  const columnOf = (field: string | undefined) => (field ? info.fields.get(field)!.column : "");
  return [
    columnOf(declaration.published.field),
    String(declaration.published.value),
    declaration.access ? columnOf(accessFieldOf(declaration)) : "",
    columnOf(declaration.creator),
    declaration.scoped ? columnOf("scope") : "",
    declaration.scoped ? columnOf("scopeId") : "",
    declaration.window ? columnOf(declaration.window.up) : "",
    declaration.window ? columnOf(declaration.window.down) : "",
  ];
}

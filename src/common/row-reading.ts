import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { decodeTimestamp, flattenedSql } from "../db/sql.js";
import type { RequestContext } from "./context.js";
import { type RecordsDeclaration, privateToSql } from "./records.js";
import { type FieldInfo, type ModelInfo, column, modelInfo, table } from "./model.js";

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

type PlannedSelection = { plan: SelectionPlan; list: Prisma.Sql };

function freshSelection(prisma: PrismaClient, info: ModelInfo, declaration: RecordsDeclaration, query: Selection | undefined, masks?: Map<string, Prisma.Sql>): PlannedSelection {
  const plan = planSelection(prisma, info, query, declaration.searchOnly);
  return { plan, list: selectList(plan, "t", masks) };
}

/**
 * Select lists without masks, kept per client, declaration and selection: the same few are asked for again and
 * again. The first MAX_KEPT_SELECTIONS shapes are kept for good (no eviction: an app asks for a few, and a
 * client making up many only makes its own reads plan each time, as before).
 */
const keptSelections = new WeakMap<PrismaClient, WeakMap<RecordsDeclaration, Map<string, PlannedSelection>>>();
/** Selections kept per declaration; past it they are planned per statement (a client can ask for many shapes). */
const MAX_KEPT_SELECTIONS = 64;

/**
 * The plan and select list of an unmasked read, planned once per selection: both depend on the model and the
 * selection only, and building the list (a Prisma.Sql per column) was ≈ 10 % of a REST read's allocation.
 */
function keptSelection(prisma: PrismaClient, info: ModelInfo, declaration: RecordsDeclaration, query: Selection | undefined): PlannedSelection {
  let byDeclaration = keptSelections.get(prisma);
  if (!byDeclaration) keptSelections.set(prisma, (byDeclaration = new WeakMap()));
  let kept = byDeclaration.get(declaration);
  if (!kept) byDeclaration.set(declaration, (kept = new Map()));
  let key: string;
  try {
    key = query === undefined ? "" : JSON.stringify(query);
  } catch {
    // A value JSON cannot write (a BigInt in a relation's filter): planned for this statement only.
    return freshSelection(prisma, info, declaration, query);
  }
  let found = kept.get(key);
  if (!found) {
    found = freshSelection(prisma, info, declaration, query);
    // Only selections read in the statement alone: one that loads more through Prisma (`rest`) holds the
    // caller's own objects (a relation's filter), which are not kept from one request for another.
    if (found.plan.rest === null && kept.size < MAX_KEPT_SELECTIONS) kept.set(key, (found = { plan: found.plan, list: flattenedSql(found.list) }));
  }
  return found;
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
  const masks = statement.viewer ? privateFieldMasks(info, declaration, statement.viewer, "t") : undefined;
  const { plan, list } = masks ? freshSelection(prisma, info, declaration, query, masks) : keptSelection(prisma, info, declaration, query);
  const sql = Prisma.sql`SELECT ${list}${statement.extra ? Prisma.sql`, ${statement.extra}` : Prisma.empty} FROM ${table(info, "t")} WHERE ${
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
export function privateFieldMasks(info: ModelInfo, declaration: RecordsDeclaration, viewer: RequestContext["viewer"], alias: string): Map<string, Prisma.Sql> | undefined {
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

import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { badInput } from "./errors.js";
import { sqlOf, type RequestContext } from "./context.js";
import { escapeLike } from "./search.js";
import { cachedTotal, type TotalStatement } from "./cached-totals.js";
import { describeScopeKinds, scopeKind, type FixedScope } from "./scope-kinds.js";
import { accessFieldOf, type RecordsDeclaration } from "./records.js";
import { column, modelInfo, table, type ModelInfo } from "./model.js";
import { questionSql, rowLeaves, totalQuestions, visibleSql, type QuestionSlots } from "./visibility.js";
import { rowsStatement, type RowsStatement, type Selection } from "./row-reading.js";
import { casesOf, countingOf, fold, policyOf, renderCases, renderSql, type Leaf, type Rule } from "./policy.js";

/** Largest page any list returns; `limit=0` asks for exactly this. */
export const MAX_PAGE_SIZE = 100;

/** The API document's default page size for every list but search. */
export const DEFAULT_PAGE_SIZE = 25;

export interface PageArgs {
  limit?: number | null;
  start?: number | null;
}

/** Turns the contract's limit/start into Prisma take/skip: 0 means the maximum, above the maximum is clamped. */
export function pageWindow({ limit, start }: PageArgs, defaultLimit = DEFAULT_PAGE_SIZE): { take: number; skip: number } {
  const requested = limit ?? defaultLimit;
  const offset = start ?? 0;
  if (!Number.isInteger(requested) || requested < 0) throw badInput("limit", "must be a whole number of 0 or more");
  if (!Number.isInteger(offset) || offset < 0) throw badInput("start", "must be a whole number of 0 or more");
  return { take: requested === 0 ? MAX_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE), skip: offset };
}

export type SortDirection = "asc" | "desc";

/**
 * Checks a sort value against the area's whitelist (REST column name → Prisma field) and normalises the
 * direction. The same names work on both surfaces, e.g. `sort: "publish_up"`.
 */
export function sortOrder<Field extends string>(
  columns: Readonly<Record<string, Field>>,
  sort: string | null | undefined,
  direction: string | null | undefined,
  fallback: { sort: string; direction: SortDirection },
): { field: Field; direction: SortDirection } {
  const name = sort || fallback.sort;
  const field = Object.hasOwn(columns, name) ? columns[name] : undefined;
  if (!field) throw badInput("sort", `must be one of ${Object.keys(columns).join(", ")}`);
  const dir = (direction || fallback.direction).toLowerCase();
  if (dir !== "asc" && dir !== "desc") throw badInput("sortDir", "must be asc or desc");
  return { field, direction: dir };
}

/**
 * How an area's list pages: declared once by the area and used by its service, its GraphQL arguments
 * (src/graphql/list.ts) and the descriptions of its facade rows, so defaults and whitelists are never
 * restated. Every sort column needs an index led by the list's filter (docs/adding-an-area.md, "Indexes";
 * test/plans.test.ts fails without one).
 */
export interface ListSpecInput {
  /** What is listed and who may see it (src/common/records.ts). */
  records: RecordsDeclaration;
  /** REST sort names → Prisma fields (the whitelist). */
  sortColumns: Readonly<Record<string, string>>;
  defaults: { sort: string; sortDir: SortDirection; limit: number };
  /**
   * Where `search` looks (for descriptions) and the fields it matches case-insensitively (ILIKE, each
   * with a trigram index); `lowerCaseFields` hold text the database keeps lower-cased for search, matched
   * with LIKE against the lower-cased text. Absent: the list has no search.
   */
  search?: { in: string; fields: string[]; lowerCaseFields?: string[] };
}

export interface ListSpec extends ListSpecInput {
  /** Lists of scoped records filter by `scope`/`scopeId`, "site"/0 when absent (from the records). */
  scoped: boolean;
}

export function listSpec(spec: ListSpecInput): ListSpec {
  if (!Object.hasOwn(spec.sortColumns, spec.defaults.sort)) throw new Error(`default sort ${spec.defaults.sort} is not in the whitelist`);
  return { ...spec, scoped: spec.records.scoped };
}

/** How `limit` and `start` read wherever records are paged (lists, and nested lists such as revisions). */
export const describePage = (defaultLimit = DEFAULT_PAGE_SIZE) => ({
  limit: `Number of results (default ${defaultLimit}; 0: the maximum, ${MAX_PAGE_SIZE}; larger values become ${MAX_PAGE_SIZE}).`,
  start: "Offset of the first result.",
});

/** The scope a scoped list shows when none is given. */
export const DEFAULT_SCOPE = { scope: "site", scopeId: 0 } as const;

/** The scope a scoped list lists: the one asked, else the site. */
export const listedScope = (args: Pick<ListArgs, "scope" | "scopeId">): { scope: string; scopeId: number } => ({
  scope: args.scope ?? DEFAULT_SCOPE.scope,
  scopeId: args.scopeId ?? DEFAULT_SCOPE.scopeId,
});

/** The descriptions every surface shows for a list's arguments. */
export function describeList(spec: ListSpec) {
  return {
    ...describePage(spec.defaults.limit),
    search: spec.search ? `Word or phrase in the ${spec.search.in} (case-insensitive, taken literally).` : undefined,
    sort: `Sort column: ${Object.keys(spec.sortColumns).join(", ")} (default ${spec.defaults.sort}).`,
    sortDir: `Sort direction: asc or desc (default ${spec.defaults.sortDir}).`,
    scope: `${describeScopeKinds()} (default "${DEFAULT_SCOPE.scope}").`,
    scopeId: `Scope object ID (default ${DEFAULT_SCOPE.scopeId}).`,
  };
}

export interface ListArgs extends PageArgs {
  search?: string | null;
  scope?: string | null;
  scopeId?: number | null;
  sort?: string | null;
  sortDir?: string | null;
}

/**
 * A page of records and, only when asked for, the number of all records that match. Both are
 * evaluated lazily and at most once: GraphQL resolves `items` and `total` only when selected.
 */
export interface Page<Item> {
  items(): Promise<Item[]>;
  total(): Promise<number>;
}

/**
 * The caller a statement is written for (a request context; the plan test passes bare viewers), and the
 * transaction they ask in, if any (a keyed operation's: src/execution/conditions.ts).
 */
export type Caller = Pick<RequestContext, "db" | "viewer" | "tx">;

/** The statements of one list request: its page (with or without the total) and its total alone. */
export interface ListStatements<Item> {
  page(withTotal: boolean): RowsStatement<Item>;
  /** The total as one SQL value: a statement to use as a scalar sub-select. */
  total: Prisma.Sql;
  /** The total from the value `total` gave (a search may count in a statement of its own, src/common/cached-totals.ts). */
  readTotal(value: unknown): Promise<number>;
}

const TOTAL = "__total";

/**
 * The one list rule, as SQL: what the caller may see, the scope (for scoped lists), the search, any area
 * filters (equality on fields), the whitelisted sort (ties broken by id, in the same direction, so one
 * index serves both directions) and the bounded window. Arguments are checked here, before anything runs,
 * so a bad `sort` is a 400 whether or not the page is read.
 */
export function listStatements<Item>(
  spec: ListSpec,
  caller: Caller,
  args: ListArgs,
  query?: Selection,
  filters: Readonly<Record<string, string | number>> = {},
  now = new Date(),
  conditions: readonly Prisma.Sql[] = [],
): ListStatements<Item> {
  const { take, skip } = pageWindow(args, spec.defaults.limit);
  const order = sortOrder(spec.sortColumns, args.sort, args.sortDir, { sort: spec.defaults.sort, direction: spec.defaults.sortDir });
  const { records } = spec;
  const info = modelInfo(caller.db, records.model);
  const scope = spec.scoped ? listedScope(args) : null;
  if (scope) scopeKind(scope.scope); // a kind nobody registered is 400, as on writes
  const search = spec.search && args.search?.trim() ? searchSql(info, spec.search, "t", args.search.trim()) : null;
  const scoping = scope ? [Prisma.sql`${column(info, "t", "scope")} = ${scope.scope} AND ${column(info, "t", "scopeId")} = ${scope.scopeId}`] : [];
  const matching = [...(search ? [search] : []), ...Object.entries(filters).map(([field, value]) => Prisma.sql`${column(info, "t", field)} = ${value}`), ...conditions];
  const where = Prisma.join([...scoping, visibleSql(caller.db, records, caller.viewer, "t", now, scope ?? undefined, "list"), ...matching], " AND ");
  const direction = Prisma.raw(order.direction === "asc" ? "ASC" : "DESC");
  const orderBy = Prisma.sql`${column(info, "t", order.field)} ${direction}, ${column(info, "t", "id")} ${direction}`;
  // Searches and filtered lists count the matching rows (search through its trigram indexes) once per
  // version of the table's scope and reuse the counts; plain lists add up the counts the list_counts
  // triggers keep.
  // Records shown to an audience (activity recipients): from what the declaration keeps for a plain list
  // (`audience.total`), else counted: the counters know no audience.
  // Records only administrators read (visibleSql: none for anyone else): nothing to count, whatever the
  // counters (which count them for everyone) or a search would say.
  const total: TotalStatement = records.administratorsOnly && !caller.viewer.user?.isAdmin
    ? { sql: Prisma.sql`SELECT 0::int`, read: async () => 0 }
    : records.audience
    ? {
        sql: records.audience.total && scope && !matching.length ? records.audience.total(caller.viewer, scope) : Prisma.sql`SELECT count(*)::int FROM ${table(info, "t")} WHERE ${where}`,
        read: async (value) => Number(value),
      }
    : matching.length
    ? cachedTotal(caller, records, scope, Prisma.join([...scoping, ...matching], " AND "), now)
    : { sql: countedTotal(caller, records, scope, now), read: async (value) => Number(value) };
  return {
    page: (withTotal) =>
      rowsStatement<Item>(caller.db, records, query, { where, orderBy, limit: take, offset: skip, viewer: caller.viewer, extra: withTotal ? Prisma.sql`(${total.sql}) AS ${Prisma.raw(`"${TOTAL}"`)}` : undefined }),
    total: total.sql,
    readTotal: total.read,
  };
}

/**
 * A list of the records the caller may see. `items` and `total` are lazy; asked for together (GraphQL
 * resolves sibling fields in one pass) they cost one SQL statement, and a page that comes back empty one
 * more for the total.
 */
export function pagedList<Item>(
  spec: ListSpec,
  ctx: RequestContext,
  args: ListArgs,
  query?: Selection,
  filters?: Readonly<Record<string, string | number>>,
  /** Conditions over the alias `t` beyond equality (activity's date range), checked by the area. */
  conditions?: readonly Prisma.Sql[],
): Page<Item> {
  const statements = listStatements<Item>(spec, ctx, args, query, filters, undefined, conditions);
  const sql = sqlOf(ctx);
  const countAlone = async () => statements.readTotal((await sql.query<{ total: unknown }>(Prisma.sql`SELECT (${statements.total}) AS total`))[0]!.total);
  const pageAlone = async () => {
    const page = statements.page(false);
    return page.finish(await sql.query(page.sql));
  };
  const run = async (want: { items: boolean; total: boolean }): Promise<{ items?: Item[]; total?: number }> => {
    if (!want.items) return { total: await countAlone() };
    const page = statements.page(want.total);
    const rows = await sql.query<Record<string, unknown>>(page.sql);
    const total = !want.total ? undefined : rows.length ? await statements.readTotal(rows[0]![TOTAL]) : await countAlone();
    for (const row of rows) delete row[TOTAL];
    return { items: await page.finish(rows), total };
  };

  // The first of `items`/`total` to be asked for opens a batch; the other joins it if asked before the
  // batch runs (GraphQL resolves sibling fields in one pass), else runs on its own.
  let gathering: { items: boolean; total: boolean } | null = null;
  let batch: Promise<{ items?: Item[]; total?: number }> | undefined;
  const join = (field: "items" | "total") => {
    if (!batch) {
      const want = (gathering = { items: false, total: false });
      // Like DataLoader: after the promise jobs queued now, so resolvers called in the same pass join in.
      batch = new Promise<void>((resolve) => void Promise.resolve().then(() => process.nextTick(resolve))).then(() => {
        gathering = null;
        return run(want);
      });
    }
    if (!gathering) return undefined;
    gathering[field] = true;
    return batch;
  };
  return {
    items: once(async () => (await join("items"))?.items ?? pageAlone()),
    total: once(async () => (await join("total"))?.total ?? countAlone()),
  };
}

const once = <T>(run: () => Promise<T>) => {
  let result: Promise<T> | undefined;
  return () => (result ??= run());
};

/** `search` as SQL: the text, taken literally, in any of the fields (case-insensitive). */
function searchSql(info: ModelInfo, search: NonNullable<ListSpec["search"]>, alias: string, text: string): Prisma.Sql {
  const pattern = `%${escapeLike(text)}%`;
  const matches = [
    ...search.fields.map((field) => Prisma.sql`${column(info, alias, field)} ILIKE ${pattern}`),
    ...(search.lowerCaseFields ?? []).map((field) => Prisma.sql`${column(info, alias, field)} LIKE lower(${pattern})`),
  ];
  return Prisma.sql`(${Prisma.join(matches, " OR ")})`;
}

/**
 * The number of records of one scope the caller may see, from the counts the list_counts triggers keep
 * (exact: they change in the writing transaction), without counting rows:
 * - administrators: every record of the scope;
 * - everyone else: the published records at the levels the caller qualifies for; signed-in users (for
 *   records with a creator) all their own records plus the others' shown to them — the counts of all
 *   creators (created_by 0) minus their own; in a scope secluded from the caller (its kind's `secluded`:
 *   a hidden group, to a non-member) their own records only, or 0.
 * Publishing windows make "published" depend on the time. A published record is shown when up <= now and
 * it has no end or down > now, so of the published records (`counted`) those with an end (`ends`) are
 * taken off, those whose end is still ahead added back, and those not yet up taken off; a record whose
 * window is empty (down <= up) is in neither of the last two, so it stays off. Records that open or close
 * later are read from list_count_days, which the same triggers keep per UTC day: the buckets of the days
 * after today, plus today's rows still ahead of `now`, counted through the publish_up/publish_down indexes.
 * The cost depends on the days ahead that have buckets and on today's rows, not on how many records wait.
 */
function countedTotal(caller: Caller, records: RecordsDeclaration, scope: FixedScope | null, now: Date): Prisma.Sql {
  // The same statement for every caller of one class and every scope of one kind: rendered once, then filled.
  return questionSql(records, "counted total", { viewer: caller.viewer, now, listScope: scope ?? undefined }, (slots) => renderCountedTotal(caller.db, records, slots))!;
}

function renderCountedTotal(db: PrismaClient, records: RecordsDeclaration, { viewer, at, nextMidnight, listScope }: QuestionSlots): Prisma.Sql {
  const scope = listScope ?? null;
  const info = modelInfo(db, records.model);
  const user = viewer.user;
  const creator = user && !user.isAdmin && records.creator ? user.id : null;
  const key = scope ?? { scope: "", scopeId: 0 };
  // Count rows (list_counts `c`, list_count_days `d`) of this table and scope: all creators' and the caller's own.
  // (`creator` is a placeholder while the statement is rendered: ask whether there is one, never what it is.)
  const owners = creator !== null ? [0, creator] : [0];
  const ofKey = (alias: string) =>
    Prisma.sql`${Prisma.raw(alias)}.table_name = ${info.table} AND ${Prisma.raw(alias)}.scope = ${key.scope} AND ${Prisma.raw(alias)}.scope_id = ${
      key.scopeId
    } AND ${Prisma.raw(alias)}.created_by IN (${Prisma.join(owners)})`;
  // A count row's rows as the others' (all creators' minus the caller's own).
  const others = (alias: string) =>
    creator !== null ? Prisma.sql`CASE ${Prisma.raw(alias)}.created_by WHEN 0 THEN ${Prisma.raw(alias)}.rows ELSE -${Prisma.raw(alias)}.rows END` : Prisma.raw(`${alias}.rows`);
  // Rows `f` of the listed table in this scope, where a total counts rows rather than reading the counters.
  const ofScope = scope ? [Prisma.sql`${column(info, "f", "scope")} = ${scope.scope} AND ${column(info, "f", "scopeId")} = ${scope.scopeId}`] : [];
  const sum = (rows: Prisma.Sql, filter: Prisma.Sql) => Prisma.sql`coalesce(sum(${rows}) FILTER (WHERE ${filter}), 0)`;
  const from = Prisma.sql`FROM list_counts c WHERE ${ofKey("c")}`;
  const countRows = (conditions: Prisma.Sql[]) => Prisma.sql`(SELECT count(*) FROM ${table(info, "f")} WHERE ${Prisma.join(conditions, " AND ")})`;

  // The rule (src/common/policy.ts) as the counters read it: what the statement decides once about the list's
  // scope, and what only rows tell.
  const { once, perRow, known } = totalQuestions(records, viewer, scope);
  const rows = rowLeaves(info, records, viewer, "f", at, listScope, "list", false, db);
  const rule = policyOf(records).visible;
  const onceSql = (leaf: Leaf) => once.get(leaf)!;

  // The others' records (everyone's counts minus the caller's own): every row, none, or the published ones at
  // the levels a case admits, and what only rows tell counted from them.
  const othersOf = (shown: Rule): Prisma.Sql => {
    const counting = countingOf(shown, perRow);
    if ("every" in counting) return sum(others("c"), Prisma.sql`TRUE`);
    if ("none" in counting) return Prisma.sql`0`;
    const values = counting.levels?.flatMap((level) => records.access!.valuesOf(level));
    const allowed = (alias: string) => (values ? Prisma.sql`${Prisma.raw(alias)}.access IN (${Prisma.join(values.length ? values : [-1])})` : Prisma.sql`TRUE`);
    const allowedRow = values ? Prisma.sql`${column(info, "f", accessFieldOf(records))} IN (${Prisma.join(values.length ? values : [-1])})` : Prisma.sql`TRUE`;
    const notMine = creator !== null ? [Prisma.sql`${column(info, "f", records.creator!)} <> ${creator}`] : [];
    const counted = sum(others("c"), Prisma.sql`c.published AND ${allowed("c")}`);
    let total = counted;
    if (records.window) {
      const ends = sum(others("c"), Prisma.sql`c.published AND ${allowed("c")} AND c.ends`);
      // Records that close (+) or open (−) after today, from the day buckets.
      const afterToday = Prisma.sql`(SELECT coalesce(sum(CASE d.edge WHEN 'down' THEN ${others("d")} ELSE -${others("d")} END), 0) FROM list_count_days d WHERE ${ofKey(
        "d",
      )} AND d.day >= (${nextMidnight})::date AND ${allowed("d")})`;
      // Today's rows of this scope, the others', published at an allowed level, as a filter over the table itself.
      const todays = (condition: Prisma.Sql) =>
        countRows([...ofScope, ...notMine, Prisma.sql`${column(info, "f", records.published.field)} = ${records.published.value}`, allowedRow, condition]);
      const up = column(info, "f", records.window.up);
      const down = column(info, "f", records.window.down);
      const closingToday = todays(Prisma.sql`${down} > ${at} AND ${down} < ${nextMidnight} AND ${down} > ${up}`);
      const openingToday = todays(Prisma.sql`${up} > ${at} AND ${up} < ${nextMidnight} AND (${down} IS NULL OR ${down} > ${up})`);
      total = Prisma.sql`(${counted} - ${ends} + ${afterToday} + ${closingToday} - ${openingToday})`;
    }
    // What the counters cannot tell (a private record of a hidden group, to its members): counted from the rows,
    // bounded by the user's own sub-select.
    if (counting.rest) total = Prisma.sql`(${total} + ${countRows([...notMine, rows.sql("published"), renderSql(counting.rest, rows.sql)])})`;
    return total;
  };
  // The caller's own records, as the creator rule shows them (the tree's `own`): all of them from the counters,
  // unless it asks more of some (a forum reply counts for its author only where its thread is readable to
  // them), which the counters cannot tell; then the own rows of this scope are counted through the creator's
  // index. (Own rows the creator rule leaves out are counted nowhere, though the level rule might show them:
  // none exist where the parent's state and level are its children's, as the forum's trigger keeps them.
  // Counting them too, by the whole rule over the own rows, cost this statement 24 % more planning.)
  const mineOf = (mine: Rule): Prisma.Sql => {
    if (mine === true) return sum(Prisma.sql`c.rows`, Prisma.sql`c.created_by = ${creator}`);
    if (mine === false) return Prisma.sql`0`;
    return countRows([...ofScope, Prisma.sql`${column(info, "f", records.creator!)} = ${creator}`, renderSql(mine, rows.sql)]);
  };
  const othersTotal = renderCases(casesOf(fold(rule, known(false)), [...once.keys()]), onceSql, othersOf);
  const total = creator !== null ? Prisma.sql`${mineOf(fold(policyOf(records).own, known(true)))} + ${othersTotal}` : othersTotal;
  return Prisma.sql`SELECT (${total})::int ${from}`;
}

/**
 * Deletes the list_count_days buckets the count triggers no longer keep (days before yesterday by the
 * database's clock, the triggers' own horizon): a total reads only the days after today, so they are
 * never read again. Run by the purge timer (src/auth/purge.ts); several processes may run it at once.
 */
export async function deletePastDayCounts(db: PrismaClient): Promise<number> {
  const [deleted] = await sqlClientOf(db).query<{ rows: number }>(
    Prisma.sql`WITH past AS (DELETE FROM list_count_days WHERE day < (now() AT TIME ZONE 'UTC')::date - 1 RETURNING 1) SELECT count(*)::int AS rows FROM past`,
  );
  return deleted!.rows;
}

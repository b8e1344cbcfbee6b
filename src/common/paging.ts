import { Prisma } from "../generated/prisma/client.js";
import { sqlOf, type RequestContext } from "./context.js";
import { escapeLike } from "./search.js";
import { cachedTotal, type TotalStatement } from "./cached-totals.js";
import { countedTotal } from "./counted-totals.js";
import { scopeKind } from "./scope-kinds.js";
import { column, modelInfo, table, type ModelInfo } from "./model.js";
import { visibleSql } from "./visibility.js";
import { rowsStatement, type RowsStatement, type Selection } from "./row-reading.js";
import { listedScope, pageWindow, sortOrder, type Caller, type ListArgs, type ListSpec, type Page } from "./list-spec.js";

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

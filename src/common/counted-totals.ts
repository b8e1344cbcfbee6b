import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import type { FixedScope } from "./scope-kinds.js";
import { accessFieldOf, type RecordsDeclaration } from "./records.js";
import { column, modelInfo, table } from "./model.js";
import { questionSql, rowLeaves, totalQuestions, type QuestionSlots } from "./visibility.js";
import { fold, policyOf, renderSql, type Leaf, type Rule } from "./policy.js";
import { casesOf, countingOf, renderCases } from "./policy-counting.js";
import type { Caller } from "./list-spec.js";

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
export function countedTotal(caller: Caller, records: RecordsDeclaration, scope: FixedScope | null, now: Date): Prisma.Sql {
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

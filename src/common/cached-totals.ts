import { LRUCache } from "lru-cache";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { decodeTimestamp, sqlClientOf, utcTimestamp, type SqlClient } from "../db/sql.js";
import { accessFieldOf, type RecordsDeclaration } from "./records.js";
import { column, modelInfo, table } from "./model.js";
import { ownRecordSql, publishedSql, totalQuestions } from "./visibility.js";
import { callerClass, fold, policyOf, renderSql, ruleOnce, type Leaf, type Rule } from "./policy.js";
import { caseOf, casesOf, countingOf } from "./policy-counting.js";
import type { Caller } from "./list-spec.js";

/**
 * Exact totals of searches and filtered lists, counted once and reused while they hold (issue 6).
 *
 * Such a total cannot come from list_counts (it depends on the search text), and counting it visits every
 * match (≈26,000 rows rechecked for `search=zephyr` at 10^6 wiki pages). So each server process keeps what it
 * counted, per list table, scope, search and filters (the list's conditions short of visibility), in a
 * bounded LRU, together with the table's version for that scope (list_versions, stamped by a statement
 * trigger in every writing transaction). The page's statement reads the version in its own snapshot; the
 * kept counts are used only when it is the version they were counted at, so they are exactly what a count
 * in that statement would find. Otherwise they are counted again with the version: in the page's statement
 * when nothing is kept, in one more statement when what is kept turns out stale — that count sees the data
 * as of its own snapshot, so a write committed between the two statements may be in the total and not yet
 * on the page (as with any list read in two statements; the next list shows both).
 *
 * What is kept does not depend on the caller: per owner (0: all rows; a user: the rows they created) the
 * number of all rows and of the published ones at each access level. A caller's total is put together from
 * them as the visibility rule (`visibleSql`) says: administrators all rows; everyone the published rows at
 * the levels they qualify for, private ones only in a scope they belong to — read in the same statement, so
 * a membership change needs no version —; signed-in users also their own rows that are not among those;
 * in a scope secluded from the caller (a hidden group, to a non-member; read in the same statement too,
 * so hiding a group needs no version) their own rows only.
 * Anonymous callers and administrators share one entry; a signed-in user adds one of their own.
 *
 * Publishing windows make "published" depend on the time: such counts hold from when they were counted
 * until the next moment one of the counted records enters or leaves its window.
 */

/** Entries per server process (a few hundred bytes each). */
const MAX_ENTRIES = 5_000;
/** Long search texts are not kept (their keys would crowd the cache out). */
const MAX_KEY_LENGTH = 2_000;

/** What one count found for one owner of one list's rows. */
interface Counted {
  /** list_versions' version of the table's scope in the snapshot that counted. */
  version: string;
  all: number;
  /** Published rows per access level (`levelValues` order); one number when the records have no levels. */
  published: number[];
  /** When it was counted, and when the first counted record enters or leaves its publishing window (ms). */
  countedAt: number;
  expires: number;
}

const caches = new WeakMap<PrismaClient, LRUCache<string, Counted>>();
/** Counts under way because kept ones turned out stale, by owners' keys and the stale version: one per process. */
const recounts = new WeakMap<PrismaClient, Map<string, Promise<unknown>>>();

/** The cache of one database's server process (each Prisma client is one process's connection to one database). */
function cacheOf(db: PrismaClient): LRUCache<string, Counted> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new LRUCache<string, Counted>({ max: MAX_ENTRIES })));
  return cache;
}

/** A total as one SQL value for the page's statement (a scalar sub-select), and what turns it into the number. */
export interface TotalStatement {
  sql: Prisma.Sql;
  /** The total from the value `sql` gave; counts in a statement of its own when the kept counts were stale. */
  read(value: unknown): Promise<number>;
}

/**
 * The exact number of records matching `conditions` (SQL over the alias `t`: the list's scope, search and
 * filters, not visibility) that the caller may see, reusing counts while list_versions says they hold.
 */
export function cachedTotal(
  caller: Caller,
  records: RecordsDeclaration,
  scope: { scope: string; scopeId: number } | null,
  conditions: Prisma.Sql,
  now: Date,
): TotalStatement {
  const { db, viewer } = caller;
  const info = modelInfo(db, records.model);
  const user = viewer.user;
  const owners = user && !user.isAdmin && records.creator ? [0, user.id] : [0];
  const levelValues = records.access ? records.access.levels.map((level) => level.value) : null;
  const key = (owner: number) => JSON.stringify([info.table, conditions.sql, conditions.values, owner]);
  const cache = cacheOf(db);
  const moment = now.getTime();
  /** The kept counts of every owner, if they hold at `version` (any one version when not given) and now. */
  const keptAt = (version?: string) => {
    const entries = owners.map((owner) => cache.get(key(owner)));
    const at = version ?? entries[0]?.version;
    const hold = entries.every((entry) => entry && entry.version === at && (!records.window || (entry.countedAt <= moment && moment < entry.expires)));
    return hold ? (entries as Counted[]) : null;
  };
  // Counts kept from before: the statement reads the version only, and they are used if it is theirs.
  const usable = keptAt() !== null;

  const versionOf = scope ?? { scope: "", scopeId: 0 };
  // The versions of all the scope's shards, as one text (the write path's migration: writers spread over shards).
  const version = Prisma.sql`coalesce((SELECT string_agg(v.shard || ':' || v.version, ',' ORDER BY v.shard) FROM list_versions v WHERE v.table_name = ${info.table} AND v.scope = ${versionOf.scope} AND v.scope_id = ${versionOf.scopeId}), '0')`;
  // What the rule (src/common/policy.ts) asks of this caller beyond the counts, each read in the same snapshot:
  // whether they belong to the list's scope (its private records: a membership change needs no version), or,
  // for unscoped records private to some users (a hidden group's members), which matching private records they
  // may see (not their own, which their owner's counts hold: bounded by the user's own sub-select, so not
  // kept); whether the scope is secluded from them (then their own rows only: hiding a group needs no
  // version); whether they moderate it (every matching record, as for administrators).
  const rule = policyOf(records).visible;
  const { once, privateTo, perRow, known } = totalQuestions(records, viewer, scope);
  const [belongs, secluded, moderated] = [once.get("member") ?? null, once.get("secluded") ?? null, once.get("moderates") ?? null];
  const asksMembership = once.size > 0 || privateTo !== null;
  // The rule's cases for this class of caller and what the statement asks once (src/common/policy.ts, ruleOnce).
  const shape = `cached total ${callerClass(user)} ${[...once.keys()].join(",")} ${privateTo ? "private" : "-"} ${perRow.join(",")}`;
  const othersCases = ruleOnce(records, shape, () => casesOf(fold(rule, known(false)), [...once.keys()]));

  // One pass over the matching rows counts every owner's numbers (and finds the next window event).
  const published = publishedSql(info, records, "t", now);
  const access = records.access ? column(info, "t", accessFieldOf(records)) : null;
  // The private records only rows tell (no scope decides them once: records that are scopes are unscoped).
  const rest = privateTo ? countingOf(othersCases as Rule, perRow) : null;
  const restRule = rest && "rest" in rest ? rest.rest : null;
  const privateSeen = restRule
    ? Prisma.sql`(SELECT count(*)::int FROM ${table(info, "t")} WHERE ${conditions} AND ${published} AND ${renderSql(restRule, (leaf) => {
        if (leaf === "member") return Prisma.sql`${column(info, "t", "id")} IN (${privateTo!})`;
        if (typeof leaf === "object") return Prisma.sql`${access!} IN (${Prisma.join(leaf.level.flatMap((level) => records.access!.valuesOf(level)))})`;
        throw new Error(`a private record's count does not ask ${leaf}`);
      })}${records.creator ? Prisma.sql` AND ${column(info, "t", records.creator)} <> ${user!.id}` : Prisma.empty})`
    : null;
  const member = belongs ?? privateSeen ?? Prisma.sql`false`;
  const count = (filter: Prisma.Sql[]) => (filter.length ? Prisma.sql`count(*) FILTER (WHERE ${Prisma.join(filter, " AND ")})` : Prisma.sql`count(*)`);
  const countsOf = (owner: number) => {
    // The caller's own rows (the only owner besides everyone, 0) as the creator rule shows them (its `parent`:
    // a forum reply only where its thread is readable to them).
    const theirs = owner ? [ownRecordSql(db, records, viewer, "t", now, scope ?? undefined, "list")!] : [];
    const levels = levelValues ? levelValues.map((value) => count([published, Prisma.sql`${access} = ${value}`, ...theirs])) : [count([published, ...theirs])];
    return [count(theirs), ...levels];
  };
  const windowEvent = records.window
    ? (() => {
        const state = Prisma.sql`${column(info, "t", records.published.field)} = ${records.published.value}`;
        const up = column(info, "t", records.window.up);
        const down = column(info, "t", records.window.down);
        const at = utcTimestamp(now);
        return [Prisma.sql`least(min(${up}) FILTER (WHERE ${state} AND ${up} > ${at}), min(${down}) FILTER (WHERE ${state} AND ${down} > ${at}))`];
      })()
    : [];
  const counts = Prisma.sql`(SELECT json_build_array(${Prisma.join([...owners.flatMap(countsOf), ...windowEvent])}) FROM ${table(info, "t")} WHERE ${conditions})`;
  const statement = (withCounts: boolean) =>
    Prisma.sql`SELECT json_build_array(${version}, ${member}, ${secluded ?? Prisma.sql`false`}, ${moderated ?? Prisma.sql`false`}${withCounts ? Prisma.sql`, ${counts}` : Prisma.empty})`;

  // The caller's total from each owner's numbers, as the rule (src/common/policy.ts) reads them: its case for
  // what the statement read of the scope (`membership`: whether the caller belongs to the list's scope, or, for
  // records private to some users, how many of the matching private records the caller may see; whether it is
  // secluded from them; whether they moderate it), then the others' rows it admits (everyone's minus the
  // caller's own) and the caller's own, which the owner's numbers count as the creator rule shows them.
  const combine = (entries: Counted[], membership: boolean | number, isSecluded: boolean, moderates: boolean) => {
    const [everyone, own] = entries as [Counted, Counted | undefined];
    const decided = (leaf: Leaf) => (leaf === "moderates" ? moderates : leaf === "secluded" ? isSecluded : membership === true);
    const counting = ruleOnce(records, `${shape} counting ${moderates} ${isSecluded} ${membership === true}`, () => countingOf(caseOf(othersCases, decided), perRow));
    const shownOf = (entry: Counted) => {
      if ("every" in counting) return entry.all;
      if ("none" in counting) return 0;
      const levels = counting.levels;
      return entry.published.reduce((sum, rows, index) => sum + (levels === null || levels.includes(records.access!.levels[index]!.name) ? rows : 0), 0);
    };
    return shownOf(everyone) + (own ? own.all - shownOf(own) : 0) + ("rest" in counting && counting.rest && typeof membership === "number" ? membership : 0);
  };

  const read = async (value: unknown): Promise<number> => {
    const [foundVersion, isMember, isSecluded, moderates, found] = value as [string, boolean | number, boolean, boolean, (number | string | null)[] | undefined];
    if (found) {
      const next = records.window && typeof found.at(-1) === "string" ? decodeTimestamp(found.at(-1) as string).getTime() : Infinity;
      const width = 1 + (levelValues?.length ?? 1);
      const entries = owners.map((owner, index): Counted => {
        const numbers = found.slice(index * width, (index + 1) * width).map(Number);
        const entry = { version: foundVersion, all: numbers[0]!, published: numbers.slice(1), countedAt: moment, expires: next };
        if (key(owner).length <= MAX_KEY_LENGTH) cache.set(key(owner), entry);
        return entry;
      });
      return combine(entries, isMember, isSecluded, moderates);
    }
    const kept = keptAt(foundVersion);
    if (kept) return combine(kept, isMember, isSecluded, moderates);
    // Written since: count again, with the version, in a statement of its own — one for all the requests
    // of this process that found the same stale counts (after a write, the popular searches all would).
    const countWith = async (sql: SqlClient) => (await sql.query<{ total: unknown }>(Prisma.sql`SELECT (${statement(true)}) AS total`))[0]!.total;
    // Inside a transaction (a keyed operation's) the count is its own, in that transaction: a count shared
    // with other requests must not run on a client that is not theirs, nor fail for them if it is refused.
    if (caller.tx) return read(await countWith(caller.tx));
    let underWay = recounts.get(db);
    if (!underWay) recounts.set(db, (underWay = new Map()));
    // (Windowed counts hold for the moment they were counted at: shared only by requests of the same moment.)
    // The recount's statement also reads whether this caller belongs to the scope and whether it is
    // secluded from them: shared only with requests of the same caller then (their owners' keys alone would
    // not tell callers apart for records without a creator; anonymous callers are one caller).
    const recount = JSON.stringify([owners.map(key), foundVersion, records.window ? moment : null, asksMembership ? (user?.id ?? "anonymous") : null]);
    let counting = underWay.get(recount);
    if (!counting) {
      counting = countWith(sqlClientOf(db));
      underWay.set(recount, counting);
      const done = () => void underWay!.delete(recount);
      counting.then(done, done);
    }
    return read(await counting);
  };

  return { sql: statement(!usable), read };
}

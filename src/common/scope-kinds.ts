import { z } from "zod";
import { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "./context.js";
import { badInput } from "./errors.js";

/**
 * Scope kinds: what `scope` may say (site, member, and the kinds areas bring). Each kind is declared once,
 * with `defineScopeKind`, in the module of whatever owns the scope ids (src/users/scope.ts for members);
 * the kit reads only these declarations, so it never names a kind an area brings. The registry is closed:
 * a `scope` no module registered is 400 naming `scope`, on writes and on lists.
 *
 * Kinds register when their module is imported: src/scope-kinds.ts imports the application's, before any
 * area (src/areas.ts) and in the CLI. A kind may also be registered later (a test's own kind), as long as
 * it is before a request uses it: lookups happen per request, never at import time.
 */

/**
 * A relation between users and a kind's scopes (belonging, managing, writing), asked three ways, so no area
 * reads a kind's tables itself: which scopes a user holds it to, the same inside a write (locking what it
 * reads), and which users hold it to one scope (fan-out: an entry to a group's managers, a notification).
 */
export interface Relation {
  /**
   * The scope ids `userId` holds the relation to, as a sub-select, unlocked: folded into reads, lists, totals,
   * audiences and moderation (`scope_id IN (…)`), so it costs no statement of its own; it should be served by an
   * index led by the user id.
   */
  scopesOf(userId: UserRef): Prisma.Sql;
  /**
   * The same, asked inside a write about the one scope `scopeId`, locking what it reads (FOR SHARE), so a change
   * of the relation committed while the write waited is seen, not the write's older snapshot; narrowed to that
   * scope, so a write locks the one row it depends on. Absent: `scopesOf` (nothing to lock).
   */
  lockedFor?(userId: UserRef, scopeId: number | Prisma.Sql): Prisma.Sql;
  /** The user ids holding the relation to the scope `scopeId`, as a sub-select. */
  usersOf(scopeId: number | Prisma.Sql): Prisma.Sql;
}

export interface ScopeKind {
  /** The value of `scope` (a lower-case word). */
  name: string;
  /**
   * Whether `scopeId` names something of this kind: an SQL condition (`EXISTS (SELECT 1 FROM groups WHERE
   * id = ${scopeId})`), or the answer itself when no lookup is needed (the site: id 0). Writes into a scope whose id does not exist are 400 naming `scopeId`, for
   * administrators too: nothing is written where its owner cannot find it. Absent: every id is accepted.
   * Checked once per write, not on reads (a list of a scope that does not exist is empty).
   */
  exists?(scopeId: number | Prisma.Sql): Prisma.Sql | boolean;
  /** Who belongs: members see the private records of their scopes. Absent: nobody belongs (private records are their creator's and administrators'). */
  members?: Relation;
  /**
   * Who may write new records into the scope (and move records there), besides administrators: `"anyone"`
   * signed in, or a relation (asked locked, about the scope written to). `exists` and this are asked in one
   * statement per write (through `sqlOf(ctx)`, so also inside a write's transaction).
   */
  writers: "anyone" | Relation;
  /** The 403's message when `writers` says no. */
  writeRefused?: string;
  /**
   * Who manages (updates, deletes) the scope's records of other creators, besides administrators; inside
   * writes asked locked (the statement that locks the record a write changes, src/common/write-path.ts, and a
   * managers-only write's scope check, a forum's pinning and closing, a webhook endpoint's registration and
   * change), elsewhere unlocked (the posts a forum's moderators read, whether a webhook endpoint's owner still
   * receives, who hears of a join request). Absent: nobody (creators manage their own records everywhere).
   */
  managers?: Relation;
  /**
   * Who reads the scope's own record where it is private (a hidden group), its members included: those it lets
   * look in besides them (a group's invitees, who read the group they are invited to, not its content). Asked
   * only of records that are scopes of the kind (`isScope`, src/common/records.ts). Absent: its members.
   */
  readers?: Relation;
  /**
   * Scopes whose records some viewers may not see at all, at any access level and in any total (a hidden
   * group's, to whoever is not its member): a sub-select of the scope ids of this kind secluded from
   * `userId` (null: an anonymous caller; else an id, a column or a placeholder, `UserRef`: only interpolate it). Nobody's but administrators' and, for their own records, the
   * records' creators' (the visibility rule, src/common/visibility.ts). A list that fixes the scope asks it
   * once per statement (an uncorrelated EXISTS: an InitPlan); a read by id asks it for the row's scope
   * (`EXISTS … WHERE id = scope_id`: one lookup by the kind's primary key, so the sub-select should filter
   * its table by the id it returns); lists of other kinds never ask it. Absent: no scope of this kind is
   * secluded from anyone. Never from the scope's own members, nor more from a member of any scope than from a
   * signed-in user who belongs nowhere: activity keeps a scope recipient by what such a user reads
   * (src/activity/readers.ts, `readableRecipients`), and a deleted record's event, private because its scope
   * was secluded, is told to the scope's members now (src/common/policy.ts, `goneKnows`).
   */
  secluded?(userId: UserRef | null): Prisma.Sql;
  /**
   * With `secluded`: the fields of the scope's own record it reads (a group's discoverability). A change of one
   * makes who may read the scope's records be decided again (their activity entries: the kit's, src/common/area.ts).
   */
  secludedBy?: readonly string[];
}

/**
 * A relation kept as rows of a membership table (a group's, a course's: one row per scope and user,
 * `user_id` and the scope's id column), held by the rows `held` admits (a condition on the row; absent: every
 * row). Inside a write it is asked about the one scope written to, locking that membership row only (FOR SHARE),
 * so a removal committed while the write waited is seen and the user's other memberships stay unlocked.
 */
export function membershipRelation({ table, scopeColumn, held }: { table: string; scopeColumn: string; held?: Prisma.Sql }): Relation {
  const [rows, scope] = [Prisma.raw(table), Prisma.raw(scopeColumn)];
  const admitted = held ? Prisma.sql` AND ${held}` : Prisma.empty;
  const scopesOf = (userId: UserRef) => Prisma.sql`SELECT ${scope} FROM ${rows} WHERE user_id = ${userId}${admitted}`;
  return {
    scopesOf,
    lockedFor: (userId, scopeId) => Prisma.sql`${scopesOf(userId)} AND ${scope} = ${scopeId} FOR SHARE`,
    usersOf: (scopeId) => Prisma.sql`SELECT user_id FROM ${rows} WHERE ${scope} = ${scopeId}${admitted}`,
  };
}

/** The relations a kind may declare, by name. */
export type RelationName = "members" | "managers";

/**
 * A user as the rules ask about them: their id, or an expression of the statement holding it (a column of an
 * `unnest` of many viewers' ids), so one statement asks a rule for many users at once (src/events/
 * subscriptions.ts, `readableBy`) instead of one statement part per user. The rules only interpolate it: a
 * rule's SQL is rendered once per class of viewer with a placeholder for it (src/common/sql-template.ts).
 */
export type UserRef = number | Prisma.Sql;

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const kinds = new Map<string, ScopeKind>();

/** Registers a scope kind (at most once per name: two modules claiming one name is a programming error). */
export function defineScopeKind<Kind extends ScopeKind>(kind: Kind): Kind {
  if (!NAME.test(kind.name)) throw new Error(`scope kind ${JSON.stringify(kind.name)}: must be a lower-case word`);
  const known = kinds.get(kind.name);
  if (known && known !== kind) throw new Error(`scope kind ${kind.name} is declared twice`);
  kinds.set(kind.name, kind);
  return kind;
}

/** The registered kinds, in registration order. */
export const scopeKinds = (): ScopeKind[] => [...kinds.values()];

/** How many kinds are registered (never fewer than before): SQL rendered from them is cached under this count (visibility.ts `questionSql`, write-path.ts `eventParts`). */
export const scopeKindCount = (): number => kinds.size;

const kindList = () => {
  const names = [...kinds.keys()];
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : (names[0] ?? "none registered");
};

/** The kind a `scope` names, if registered. */
export const scopeKindIfRegistered = (name: string): ScopeKind | undefined => kinds.get(name);

/** The kind a `scope` names, or 400 naming `parameter`. */
export function scopeKind(name: string, parameter = "scope"): ScopeKind {
  const kind = kinds.get(name);
  if (!kind) throw badInput(parameter, `must be a scope kind: ${kindList()}`);
  return kind;
}

/**
 * The zod rule for a `scope` field of a service's input: a registered kind. Checked when input is parsed
 * (not when the schema is built), so kinds registered after the service's module still count.
 */
export const scopeKindField = z.string().superRefine((name, issues) => {
  if (!kinds.has(name)) issues.addIssue({ code: "custom", message: `must be a scope kind: ${kindList()}` });
});

/** What `scope` means, for GraphQL and REST descriptions (the kinds registered when they are written). */
export const describeScopeKinds = () => `Scope kind: ${kindList()}`;

/**
 * The condition "the user belongs to the scope `scopeIdSql` of kind `kind`" (the kind's `members`
 * sub-select), or null when nobody belongs to scopes of that kind.
 */
export function belongsSql(kind: string, scopeIdSql: Prisma.Sql, userId: UserRef): Prisma.Sql | null {
  const members = kinds.get(kind)?.members;
  return members ? Prisma.sql`${scopeIdSql} IN (${members.scopesOf(userId)})` : null;
}

/**
 * "The record's scope is one of the user's, as each kind's `relation` says" (`members`: they belong;
 * `managers`: they manage), over the record's `scope` and `scope_id` columns: one `scope = kind AND
 * scope_id IN (…)` per kind with that relation (only `onlyKind`'s when a list already fixes the scope).
 * `lock`: asked inside a write, through each kind's `lockedFor` about the record's own scope. `asArray`: the
 * scope ids as an array (`= ANY(ARRAY(…))`, computed once), for a column an index is probed with (activity's
 * recipients: an IN sub-select read every group recipient). Null when no such kind is registered.
 */
export function recordScopeSql(
  scopeSql: Prisma.Sql,
  scopeIdSql: Prisma.Sql,
  relation: RelationName,
  userId: UserRef,
  { lock = false, onlyKind, asArray = false }: { lock?: boolean; onlyKind?: string; asArray?: boolean } = {},
): Prisma.Sql | null {
  const conditions = scopeKinds()
    .filter((kind) => kind[relation] && (onlyKind === undefined || kind.name === onlyKind))
    // The kind as a literal (names are checked words), as a constant the planner can see. Locked, the
    // kind's sub-select is correlated with the record's scope and takes the one row it is asked about;
    // unlocked, it is folded into lists, uncorrelated.
    .map((kind) => {
      const held = scopesHeld(kind[relation]!, userId, lock ? scopeIdSql : undefined);
      return Prisma.sql`(${scopeSql} = ${Prisma.raw(`'${kind.name}'`)} AND ${asArray ? Prisma.sql`${scopeIdSql} = ANY(ARRAY(${held}))` : Prisma.sql`${scopeIdSql} IN (${held})`})`;
    });
  if (!conditions.length) return null;
  return conditions.length === 1 ? conditions[0]! : Prisma.sql`(${Prisma.join(conditions, " OR ")})`;
}

/** A relation's scope ids for the user: locked about `lockedScopeId` when given (inside a write), else `scopesOf`. */
const scopesHeld = (relation: Relation, userId: UserRef, lockedScopeId?: number | Prisma.Sql) =>
  lockedScopeId !== undefined && relation.lockedFor ? relation.lockedFor(userId, lockedScopeId) : relation.scopesOf(userId);

/**
 * "The user holds `relation` to this one scope" (a managers-only write's check, a moderator's): false when its
 * kind has no such relation, or is not registered (a stored row of a kind no longer declared: nobody holds it).
 */
export function holdsRelationSql(relation: RelationName | "writers", scope: string, scopeId: number | Prisma.Sql, userId: UserRef, { lock = false } = {}): Prisma.Sql | boolean {
  const kind = kinds.get(scope);
  if (!kind) return false;
  const held = relation === "writers" ? kind.writers : kind[relation];
  if (held === "anyone") return true;
  if (!held) return false;
  return Prisma.sql`${scopeId} IN (${scopesHeld(held, userId, lock ? scopeId : undefined)})`;
}

/**
 * The users holding `relation` to one scope, as a sub-select of user ids (an activity entry to a group's
 * managers, a join request's notification); null when the kind has no such relation.
 */
export function usersInRelationSql(scope: string, scopeId: number | Prisma.Sql, relation: RelationName): Prisma.Sql | null {
  return kinds.get(scope)?.[relation]?.usersOf(scopeId) ?? null;
}

/**
 * Every scope, of any kind, the user holds `relation` to, as a sub-select of (scope, scope_id) pairs: one
 * part per kind that has the relation, or null when none has (a forum's moderated scopes; who hears what
 * is sent to a user's groups).
 */
export function scopesInRelationSql(relation: RelationName, userId: UserRef): Prisma.Sql | null {
  const parts = scopeKinds()
    .filter((kind) => kind[relation])
    .map((kind) => Prisma.sql`SELECT ${Prisma.raw(`'${kind.name}'`)}::text AS scope, held.id AS scope_id FROM (${kind[relation]!.scopesOf(userId)}) AS held (id)`);
  return parts.length ? Prisma.join(parts, " UNION ALL ") : null;
}

/**
 * Holds the record's scope as a write into it does (each kind's `exists`, which locks what it reads: a
 * group's row FOR KEY SHARE), over the record's `scope` and `scope_id` columns; always true. The statement
 * that locks a record for a change asks it in its WHERE, before its select list asks whether the caller
 * manages the scope (which reads the memberships FOR SHARE): so a write takes the group's row before the
 * memberships, the order a membership change takes them in (the group FOR UPDATE, then the membership).
 * In the other order a manager's change racing their own demotion deadlocked (test/scope-write-check.test.ts).
 */
export function recordScopeHeldSql(scopeSql: Prisma.Sql, scopeIdSql: Prisma.Sql): Prisma.Sql {
  // IS NOT NULL: always true, but only known once the sub-select (and its lock) has run.
  return Prisma.sql`(${recordScopeExistsSql(scopeSql, scopeIdSql)}) IS NOT NULL`;
}

/**
 * "The record's scope exists", over `scope` and `scope_id` columns (or an unnest's), as a write into it asks
 * it: each kind's `exists`, which locks what it reads (a group's row FOR KEY SHARE); kinds whose `exists` is
 * no lookup (the site) or absent count as existing. Statements that insert rows computed earlier (an outbox
 * consumer's entries) filter on it, so a scope deleted before the insert commits gets nothing: the deletion
 * either committed first (the row is gone) or waits for the insert and takes its rows with it.
 */
export function recordScopeExistsSql(scopeSql: Prisma.Sql, scopeIdSql: Prisma.Sql): Prisma.Sql {
  const cases = scopeKinds().flatMap((kind) => {
    const exists = kind.exists?.(scopeIdSql);
    return exists instanceof Prisma.Sql ? [Prisma.sql`WHEN ${scopeSql} = ${Prisma.raw(`'${kind.name}'`)} THEN (${exists})`] : [];
  });
  return cases.length ? Prisma.sql`(CASE ${Prisma.join(cases, " ")} ELSE TRUE END)` : Prisma.sql`TRUE`;
}

/** "The record's scope is one the user belongs to" (`recordScopeSql` over members); null: nobody belongs to any scope. */
export const belongsToRecordScopeSql = (scopeSql: Prisma.Sql, scopeIdSql: Prisma.Sql, userId: UserRef, onlyKind?: string) =>
  recordScopeSql(scopeSql, scopeIdSql, "members", userId, { onlyKind });

/** A scope a list fixes: its kind and id. */
export interface FixedScope {
  scope: string;
  scopeId: number;
}

const secludedAmong = (kind: ScopeKind, userId: UserRef | null, id: Prisma.Sql) =>
  Prisma.sql`EXISTS (SELECT 1 FROM (${kind.secluded!(userId)}) AS secluded (id) WHERE secluded.id = ${id})`;

/**
 * "The scope a list fixes is secluded from the user" (its kind's `secluded`, about its id: an uncorrelated
 * EXISTS the planner evaluates once per statement, an InitPlan), or null when its kind secludes nothing —
 * then the list gets no SQL for it.
 */
export function scopeSecludedSql(scope: FixedScope, userId: UserRef | null): Prisma.Sql | null {
  const kind = kinds.get(scope.scope);
  return kind?.secluded ? secludedAmong(kind, userId, Prisma.sql`${scope.scopeId}`) : null;
}

/**
 * "The record's scope is secluded from the user", over the record's `scope` and `scope_id` columns (a read by
 * id): one `scope = kind AND EXISTS (… = scope_id)` per kind that declares `secluded`, or null when none does.
 * `fixed`: the scope a list fixes — then `scopeSecludedSql` of it.
 */
export function secludedScopeSql(scopeSql: Prisma.Sql, scopeIdSql: Prisma.Sql, userId: UserRef | null, fixed?: FixedScope): Prisma.Sql | null {
  if (fixed) return scopeSecludedSql(fixed, userId);
  const conditions = scopeKinds()
    .filter((kind) => kind.secluded)
    .map((kind) => Prisma.sql`(${scopeSql} = ${Prisma.raw(`'${kind.name}'`)} AND ${secludedAmong(kind, userId, scopeIdSql)})`);
  if (!conditions.length) return null;
  return conditions.length === 1 ? conditions[0]! : Prisma.sql`(${Prisma.join(conditions, " OR ")})`;
}

import { contextWith, sqlOf, type RequestContext } from "./context.js";
import { badInput, forbidden, unauthenticated } from "./errors.js";
import { raisedRefusal } from "./database-errors.js";
import { Prisma } from "../generated/prisma/client.js";
import { holdsRelationSql, scopeKind, scopeSecludedSql, type ScopeKind } from "./scope-kinds.js";

/** A record that belongs to a scope (of a registered kind, src/common/scope-kinds.ts) and was created by a user. */
export interface ScopedRecord {
  scope: string;
  scopeId: number;
  createdById: number;
}

/** The caller, or 401. */
export function requireUser(ctx: RequestContext) {
  if (!ctx.viewer.user) throw unauthenticated();
  return ctx.viewer.user;
}

/** The caller if an administrator: 401 without a user, 403 (`refused`) for anyone else. */
export function requireAdministrator(ctx: RequestContext, refused: string) {
  const user = requireUser(ctx);
  if (!user.isAdmin) throw forbidden(refused);
  return user;
}

/** Who a scope admits for a write: its kind's `writers` (content), or its `managers` (announcements). */
export type ScopeRule = { rule: "writers" } | { rule: "managers"; refused: string };

/**
 * May the caller put a record into this scope? The scope's kind decides (src/common/scope-kinds.ts): its id
 * must exist (for administrators too: 400 naming `scopeId`; for everyone else it must not be secluded from
 * them either — a hidden group is missing to a non-member), and then administrators may write anywhere,
 * others where the kind's `writers` (or, for `managers`, its managers) admit them (403). As SQL yielding TRUE
 * or raising the refusal (`write_refused`, mapped back by `raisedRefusal`), so a create asks it in the very
 * statement that inserts (`createRecord`'s `scope`): a kind's `exists` may lock its row (a group's, FOR KEY
 * SHARE), so the scope cannot go between the check and the insert. Null when nothing needs asking (the
 * site, administrators in a scope without ids); an answer known without a lookup is thrown at once.
 * An unregistered kind is 400 naming `scope`.
 */
export function scopeWriteCheck(ctx: RequestContext, scope: string, scopeId: number, admits: ScopeRule = { rule: "writers" }): Prisma.Sql | null {
  const user = requireUser(ctx);
  const kind = scopeKind(scope);
  const refused = admits.rule === "managers" ? admits.refused : (kind.writeRefused ?? `You may not write in this ${kind.name} scope.`);
  const admitted = user.isAdmin ? true : holdsRelationSql(admits.rule, kind.name, scopeId, user.id, { lock: true });
  const missing = `no ${kind.name} with id ${scopeId}`;
  const absent = absentSql(kind, scope, scopeId, user);
  if (absent === true) throw badInput("scopeId", missing);
  if (absent === false && admitted === false) throw forbidden(refused);
  if (absent === false && admitted === true) return null;
  return Prisma.sql`SELECT CASE WHEN ${absent} THEN write_refused('HG400', 'scopeId', ${missing})
                                WHEN (${admitted}) IS NOT TRUE THEN write_refused('HG403', '', ${refused})
                                ELSE TRUE END AS admitted`;
}

/**
 * Whether a condition the kit answers as known already (true, false: a kind without the relation, the site's
 * `exists`) or as SQL (`holdsRelationSql`, a kind's `exists`) holds: asked through the request's client, so
 * inside its transaction where it has one, taking whatever locks the SQL takes.
 */
export async function conditionHolds(ctx: RequestContext, condition: boolean | Prisma.Sql): Promise<boolean> {
  if (typeof condition === "boolean") return condition;
  const [row] = await sqlOf(ctx).query<{ holds: boolean }>(Prisma.sql`SELECT (${condition}) IS TRUE AS holds`);
  return row!.holds;
}

/**
 * Whether the scope is not there for the user: known now (true, false), or SQL to ask. A scope secluded
 * from the caller (a hidden group, to a non-member) answers as a missing one: a write must not tell them
 * it exists, as reads do not (administrators see every scope).
 */
function absentSql(kind: ScopeKind, scope: string, scopeId: number, user: { id: number; isAdmin: boolean }): boolean | Prisma.Sql {
  const exists = kind.exists ? kind.exists(scopeId) : true;
  const secluded = user.isAdmin ? null : scopeSecludedSql({ scope, scopeId }, user.id);
  if (exists === false) return true;
  if (exists === true) return secluded ?? false;
  return secluded ? Prisma.sql`NOT (${exists}) OR ${secluded}` : Prisma.sql`NOT (${exists})`;
}

/** `scopeWriteCheck` as a statement of its own, through `sqlOf(ctx)` (inside a write's transaction: a record moving scope). */
export async function assertCanWriteInScope(ctx: RequestContext, scope: string, scopeId: number, admits: ScopeRule = { rule: "writers" }): Promise<void> {
  const check = scopeWriteCheck(ctx, scope, scopeId, admits);
  if (!check) return;
  await sqlOf(ctx).query(check).catch((error: unknown) => {
    throw raisedRefusal(error) ?? error;
  });
}

/**
 * Resolves `created_by`. 0 or absent keeps `current` (the caller on create, the stored creator on
 * update); naming anyone else is for administrators only, so nobody can hand a record to someone else
 * or claim another user's record as their own.
 */
export async function resolveCreator(ctx: RequestContext, requested: number | null | undefined, current: number): Promise<number> {
  const user = requireUser(ctx);
  if (!requested || requested === current) return current;
  if (!user.isAdmin) throw forbidden("Only administrators can change created_by.");
  if (!(await sqlOf(ctx).query(Prisma.sql`SELECT 1 FROM users WHERE id = ${requested}`)).length) throw badInput("createdBy", `no user with id ${requested}`);
  return requested;
}

/** The site path of a scoped record: `/wiki/Name` on the site, `/<kind>s/7/wiki/Name` in another scope. */
export function scopedPath(record: { scope: string; scopeId: number }, area: string, name: string): string {
  return record.scope === "site" ? `/${area}/${name}` : `/${record.scope}s/${record.scopeId}/${area}/${name}`;
}

/**
 * The request as one confined to `scope` (`RequestContext.confinedTo`): a path that names the scope (a
 * group plugin path) hands this to the area's service, so the kit finds, locks and writes records of that
 * scope only. A copy of the request's context (`contextWith`, as the write path's transaction context is), so the
 * request itself stays unconfined (its `conditions`, which reads and writes report to, are the request's own).
 */
export async function withinScope<T>(ctx: RequestContext, scope: { scope: string; scopeId: number }, work: (confined: RequestContext) => Promise<T>): Promise<T> {
  return work(contextWith(ctx, { confinedTo: scope }));
}


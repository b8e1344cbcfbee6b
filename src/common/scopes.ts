import { sqlOf, type RequestContext } from "./context.js";
import { badInput, forbidden, unauthenticated } from "./errors.js";
import { Prisma } from "../generated/prisma/client.js";
import { column, type ModelInfo, type RecordsDeclaration } from "./records.js";
import { recordScopeSql, scopeKind } from "./scope-kinds.js";

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

/**
 * May the caller put content into this scope? The scope's kind decides (src/common/scope-kinds.ts): its id
 * must exist (for administrators too), and then administrators may write anywhere, others where the
 * kind's `writers` lets them; both in one statement, through `sqlOf(ctx)`, and none when the kind needs no
 * lookup. An unregistered kind is 400 naming `scope`.
 */
export async function assertCanWriteInScope(ctx: RequestContext, scope: string, scopeId: number): Promise<void> {
  const user = requireUser(ctx);
  const kind = scopeKind(scope);
  const exists = kind.exists ? kind.exists(scopeId) : true;
  const writes = user.isAdmin || kind.writers === "anyone" ? true : Prisma.sql`${scopeId} IN (${kind.writers(user.id)})`;
  const asked = typeof exists === "boolean" && typeof writes === "boolean"
    ? { exists, writes }
    : (await sqlOf(ctx).query<{ exists: boolean; writes: boolean }>(Prisma.sql`SELECT ${exists} AS exists, ${writes} AS writes`))[0]!;
  if (!asked.exists) throw badInput("scopeId", `no ${kind.name} with id ${scopeId}`);
  if (!asked.writes) throw forbidden(kind.writeRefused ?? `You may not write in this ${kind.name} scope.`);
}

/**
 * Who may change (update, delete) a record, as SQL over its row at `alias` (the write path evaluates it on
 * the locked row): administrators, its creator, and whoever its scope's kind says manages the scope.
 */
export function managesSql(info: ModelInfo, records: RecordsDeclaration, alias: string, viewer: RequestContext["viewer"]): Prisma.Sql {
  const user = viewer.user;
  if (!user) return Prisma.sql`FALSE`;
  if (user.isAdmin) return Prisma.sql`TRUE`;
  const rules: Prisma.Sql[] = [];
  if (records.creator) rules.push(Prisma.sql`${column(info, alias, records.creator)} = ${user.id}`);
  const managed = records.scoped ? recordScopeSql(column(info, alias, "scope"), column(info, alias, "scopeId"), "managers", user.id) : null;
  if (managed) rules.push(managed);
  if (records.managedBy) rules.push(Prisma.sql`${column(info, alias, "id")} IN (${records.managedBy(user.id)})`);
  return rules.length ? Prisma.sql`(${Prisma.join(rules, " OR ")})` : Prisma.sql`FALSE`;
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
 * scope only. A new object over the request's (as the write path's transaction context is), so the
 * request itself stays unconfined; `recordVersion`, which reads set, is copied back by `withinScope`.
 */
export async function withinScope<T>(ctx: RequestContext, scope: { scope: string; scopeId: number }, work: (confined: RequestContext) => Promise<T>): Promise<T> {
  const confined = Object.assign(Object.create(ctx) as RequestContext, { confinedTo: scope });
  try {
    return await work(confined);
  } finally {
    if (Object.hasOwn(confined, "recordVersion")) ctx.recordVersion = confined.recordVersion;
  }
}

/**
 * Does the caller manage this scope? Its id must exist (400 naming `scopeId`, for administrators too), and
 * then administrators manage every scope, others those the kind's `managers` names (403 with `refused`).
 * Both in one statement through `sqlOf(ctx)`. For areas where only managers write (announcements), in
 * place of `assertCanWriteInScope`.
 */
export async function assertManagesScope(ctx: RequestContext, scope: string, scopeId: number, refused: string): Promise<void> {
  const user = requireUser(ctx);
  const kind = scopeKind(scope);
  const exists = kind.exists ? kind.exists(scopeId) : true;
  const manages = user.isAdmin ? true : kind.managers ? Prisma.sql`${scopeId} IN (${kind.managers(user.id)})` : false;
  const [asked] = await sqlOf(ctx).query<{ exists: boolean; manages: boolean }>(Prisma.sql`SELECT ${exists} AS exists, ${manages} AS manages`);
  if (!asked!.exists) throw badInput("scopeId", `no ${kind.name} with id ${scopeId}`);
  if (!asked!.manages) throw forbidden(refused);
}

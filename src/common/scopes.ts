import { sqlOf, type RequestContext } from "./context.js";
import { badInput, forbidden, notFound, unauthenticated } from "./errors.js";
import { Prisma } from "../generated/prisma/client.js";
import { column, type ModelInfo, type RecordsDeclaration } from "./records.js";

/** A record that belongs to a scope (site, group, member, …) and was created by a user. */
export interface ScopedRecord {
  scope: string;
  scopeId: number;
  createdById: number;
}

export const SCOPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** The caller, or 401. */
export function requireUser(ctx: RequestContext) {
  if (!ctx.viewer.user) throw unauthenticated();
  return ctx.viewer.user;
}

/**
 * May the caller put content into this scope? Group scopes need group membership (and the group must
 * exist), member scopes belong to that member; administrators may write anywhere. Plain SQL through
 * `sqlOf(ctx)`, so the write path can ask it inside its transaction (a scope move).
 */
export async function assertCanWriteInScope(ctx: RequestContext, scope: string, scopeId: number): Promise<void> {
  const user = requireUser(ctx);
  if (user.isAdmin) return;
  if (scope === "group") {
    const [found] = await sqlOf(ctx).query<{ member: boolean }>(
      Prisma.sql`SELECT EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.id AND m.user_id = ${user.id} AND m.role IN ('member', 'manager')) AS member FROM groups g WHERE g.id = ${scopeId}`,
    );
    if (!found) throw badInput("scopeId", `no group with id ${scopeId}`);
    if (!found.member) throw forbidden("Only members of this group can write in it.");
  } else if (scope === "member" && scopeId !== user.id) {
    throw forbidden("Only that member can write in a member scope.");
  }
}

/** Update and delete: the creator, administrators, and managers of the record's group. */
export async function canManage(ctx: RequestContext, record: ScopedRecord): Promise<boolean> {
  const user = ctx.viewer.user;
  if (!user) return false;
  if (user.isAdmin || record.createdById === user.id) return true;
  return record.scope === "group" && (await ctx.groupRoles()).manager.has(record.scopeId);
}

/**
 * `canManage` as SQL over a row of `records` at `alias` (the write path evaluates it on the locked row):
 * administrators, the creator, and managers of the record's group.
 */
export function managesSql(info: ModelInfo, records: RecordsDeclaration, alias: string, viewer: RequestContext["viewer"]): Prisma.Sql {
  const user = viewer.user;
  if (!user) return Prisma.sql`FALSE`;
  if (user.isAdmin) return Prisma.sql`TRUE`;
  const rules: Prisma.Sql[] = [];
  if (records.creator) rules.push(Prisma.sql`${column(info, alias, records.creator)} = ${user.id}`);
  if (records.scoped) {
    rules.push(
      Prisma.sql`(${column(info, alias, "scope")} = 'group' AND ${column(info, alias, "scopeId")} IN (SELECT group_id FROM group_members WHERE user_id = ${user.id} AND role = 'manager'))`,
    );
  }
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
  const [exists] = await sqlOf(ctx).query(Prisma.sql`SELECT 1 FROM users WHERE id = ${requested}`);
  if (!exists) throw badInput("createdBy", `no user with id ${requested}`);
  return requested;
}

/**
 * The record an update or delete acts on. Managing rights are checked before visibility, so a group
 * manager can act on an unpublished group record; callers who may see it but not manage it get 403,
 * and callers who may not even see it get 404, as if it did not exist.
 */
export async function recordToChange<R extends ScopedRecord>(
  ctx: RequestContext,
  record: R | null,
  isVisible: () => Promise<boolean>,
  notFoundMessage: string,
  forbiddenMessage: string,
): Promise<R> {
  requireUser(ctx);
  if (record && (await canManage(ctx, record))) return record;
  if (record && (await isVisible())) throw forbidden(forbiddenMessage);
  throw notFound(notFoundMessage);
}

/** The site path of a scoped record: `/wiki/Name` on the site, `/groups/7/wiki/Name` inside a group. */
export function scopedPath(record: { scope: string; scopeId: number }, area: string, name: string): string {
  return record.scope === "site" ? `/${area}/${name}` : `/${record.scope}s/${record.scopeId}/${area}/${name}`;
}

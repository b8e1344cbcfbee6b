import type { RequestContext } from "./context.js";
import { badInput, forbidden, notFound, unauthenticated } from "./errors.js";
import { byKeys, defineLoader } from "./loaders.js";
import { groupsById } from "../groups/membership.js";
import DataLoader from "dataloader";

/** Users by id (existence checks such as created_by), batched per request. */
const usersById = defineLoader(
  (ctx) =>
    new DataLoader<number, { id: number } | null>(async (ids) =>
      byKeys(ids, await ctx.db.user.findMany({ where: { id: { in: [...ids] } }, select: { id: true } }), (user) => user.id),
    ),
);

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
 * exist), member scopes belong to that member; administrators may write anywhere.
 */
export async function assertCanWriteInScope(ctx: RequestContext, scope: string, scopeId: number): Promise<void> {
  const user = requireUser(ctx);
  if (user.isAdmin) return;
  if (scope === "group") {
    const group = await groupsById(ctx).load(scopeId);
    if (!group) throw badInput("scopeId", `no group with id ${scopeId}`);
    if (!(await ctx.groupRoles()).member.has(scopeId)) throw forbidden("Only members of this group can write in it.");
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
 * Resolves `created_by`. 0 or absent keeps `current` (the caller on create, the stored creator on
 * update); naming anyone else is for administrators only, so nobody can hand a record to someone else
 * or claim another user's record as their own.
 */
export async function resolveCreator(ctx: RequestContext, requested: number | null | undefined, current: number): Promise<number> {
  const user = requireUser(ctx);
  if (!requested || requested === current) return current;
  if (!user.isAdmin) throw forbidden("Only administrators can change created_by.");
  const exists = await usersById(ctx).load(requested);
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

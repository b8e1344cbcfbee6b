import type { RequestContext } from "./context.js";
import { badInput, forbidden, notFound, unauthenticated } from "./errors.js";
import { byKeys, defineLoader } from "./loaders.js";
import { scopeKind, scopeKindIfRegistered } from "./scope-kinds.js";
import DataLoader from "dataloader";

/** Users by id (existence checks such as created_by), batched per request. */
export const usersById = defineLoader(
  (ctx) =>
    new DataLoader<number, { id: number } | null>(async (ids) =>
      byKeys(ids, await ctx.db.user.findMany({ where: { id: { in: [...ids] } }, select: { id: true } }), (user) => user.id),
    ),
);

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
 * kind's `mayWrite` lets them. An unregistered kind is 400 naming `scope`.
 */
export async function assertCanWriteInScope(ctx: RequestContext, scope: string, scopeId: number): Promise<void> {
  const user = requireUser(ctx);
  const kind = scopeKind(scope);
  if (kind.exists && !(await kind.exists(ctx, scopeId))) throw badInput("scopeId", `no ${kind.name} with id ${scopeId}`);
  if (user.isAdmin) return;
  if (!(await kind.mayWrite(ctx, scopeId, user))) throw forbidden(kind.writeRefused ?? `You may not write in this ${kind.name} scope.`);
}

/** Update and delete: the creator, administrators, and whoever the record's scope kind lets manage it. */
export async function canManage(ctx: RequestContext, record: ScopedRecord): Promise<boolean> {
  const user = ctx.viewer.user;
  if (!user) return false;
  if (user.isAdmin || record.createdById === user.id) return true;
  // A row of a kind this build does not register (stored by another build): nobody manages in it.
  const mayManage = scopeKindIfRegistered(record.scope)?.mayManage;
  return mayManage ? mayManage(ctx, record.scopeId, user) : false;
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
 * The record an update or delete acts on. Managing rights are checked before visibility, so a scope's
 * manager can act on an unpublished record of the scope; callers who may see it but not manage it get 403,
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

/** The site path of a scoped record: `/wiki/Name` on the site, `/<kind>s/7/wiki/Name` in another scope. */
export function scopedPath(record: { scope: string; scopeId: number }, area: string, name: string): string {
  return record.scope === "site" ? `/${area}/${name}` : `/${record.scope}s/${record.scopeId}/${area}/${name}`;
}

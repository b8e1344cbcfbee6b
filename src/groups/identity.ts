import { Prisma } from "../generated/prisma/client.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { badInput, notFound } from "../common/errors.js";
import { visibleSql } from "../common/visibility.js";
import { GROUPS } from "./records.js";

/**
 * A group path's `{id}` / `{group}`: the gidNumber (digits) or the cn (a cn starts with a letter, so the
 * two never meet). Anything else names no group.
 */
export type GroupKey = { gidNumber: number } | { cn: string };

export function parseGroupKey(raw: string | number, parameter = "id"): GroupKey {
  const text = String(raw).trim();
  if (/^\d+$/.test(text)) {
    const gidNumber = Number(text);
    if (!Number.isSafeInteger(gidNumber) || gidNumber > 2_147_483_647) throw badInput(parameter, "must be a group's gidNumber or cn");
    return { gidNumber };
  }
  if (/^[A-Za-z][A-Za-z0-9]*$/.test(text)) return { cn: text.toLowerCase() };
  throw badInput(parameter, "must be a group's gidNumber (digits) or cn (letters and digits, starting with a letter)");
}

/** The condition on `groups` (alias `alias`) that picks the group a key names. */
export const groupKeySql = (key: GroupKey, alias = "g"): Prisma.Sql =>
  "gidNumber" in key ? Prisma.sql`${Prisma.raw(alias)}.id = ${key.gidNumber}` : Prisma.sql`${Prisma.raw(alias)}.cn = ${key.cn}`;

/**
 * Who may know a group exists (issue 17, "Who sees what"), as SQL over `groups` `alias`: the groups
 * records' rule as a single read asks it (src/groups/records.ts: visible groups everyone; hidden ones
 * administrators, their members and the people they invited).
 */
export const groupShownSql = (ctx: RequestContext, alias = "g"): Prisma.Sql => visibleSql(ctx.db, GROUPS, ctx.viewer, alias, new Date(), undefined, "read");

/**
 * Who may find a group and see its people, as SQL over `groups` `alias`: the same rule as a list asks it
 * (visible groups everyone; hidden ones administrators and their members). A hidden group's invitees may
 * read the group itself (groupShownSql) but not its members list until they accept (docs/decisions.md).
 */
export const groupListedSql = (ctx: RequestContext, alias = "g"): Prisma.Sql => visibleSql(ctx.db, GROUPS, ctx.viewer, alias, new Date(), undefined, "list");

/**
 * The gidNumber of the group a path names, if the caller may know it exists; else 404 naming the key
 * (a hidden group and a missing one answer alike). One statement, through `sqlOf` (so also inside a
 * write's transaction).
 */
export async function groupIdFromPath(ctx: RequestContext, raw: string | number, parameter = "id"): Promise<number> {
  const key = parseGroupKey(raw, parameter);
  const [row] = await sqlOf(ctx).query<{ id: number }>(Prisma.sql`SELECT g.id FROM groups g WHERE ${groupKeySql(key)} AND ${groupShownSql(ctx)}`);
  if (!row) throw notFound(`Group ${String(raw).trim()} not found.`);
  return Number(row.id);
}

/** A group's id for a write from a path key: a gidNumber as is (the write path answers 404/403 on the locked row), a cn by one lookup. */
export async function groupIdOf(ctx: RequestContext, raw: string, parameter = "id"): Promise<number> {
  const key = parseGroupKey(raw, parameter);
  return "gidNumber" in key ? key.gidNumber : groupIdFromPath(ctx, raw, parameter);
}

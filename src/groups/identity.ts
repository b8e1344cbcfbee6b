import { Prisma } from "../generated/prisma/client.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { badInput, notFound } from "../common/errors.js";

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
 * Who may know a group exists (issue 17, "Who sees what"): everyone for a visible group; for a hidden
 * one, administrators, its members and the people it invited. As SQL over `groups` `alias`.
 */
export function groupShownSql(ctx: RequestContext, alias = "g"): Prisma.Sql {
  const user = ctx.viewer.user;
  const group = Prisma.raw(alias);
  if (user?.isAdmin) return Prisma.sql`TRUE`;
  if (!user) return Prisma.sql`${group}.discoverability = 0`;
  return Prisma.sql`(${group}.discoverability = 0 OR ${group}.id IN (SELECT group_id FROM group_members WHERE user_id = ${user.id} AND status IN ('member', 'invitee')))`;
}

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

import { Prisma } from "../generated/prisma/client.js";
import { defineScopeKind } from "../common/scope-kinds.js";
import { sqlOf } from "../common/context.js";

/**
 * `scope=group`, `scope_id` = the group's id: the group must exist; its members see its private records
 * and write in it; its managers manage every record in it.
 */
export const GROUP_SCOPE = defineScopeKind({
  name: "group",
  exists: async (ctx, groupId) => (await sqlOf(ctx).query(Prisma.sql`SELECT 1 FROM groups WHERE id = ${groupId}`)).length > 0,
  // Members only (managers are members with a flag; invitees and applicants are not members yet), as
  // served by the (user_id, status, group_id) index.
  members: (userId) => Prisma.sql`SELECT group_id FROM group_members WHERE user_id = ${userId} AND status = 'member'`,
  mayWrite: async (ctx, groupId, user) =>
    (await sqlOf(ctx).query(Prisma.sql`SELECT 1 FROM group_members WHERE group_id = ${groupId} AND user_id = ${user.id} AND status = 'member'`)).length > 0,
  writeRefused: "Only members of this group can write in it.",
  managers: (userId) => Prisma.sql`SELECT group_id FROM group_members WHERE user_id = ${userId} AND status = 'member' AND manager`,
});

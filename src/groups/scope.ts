import { Prisma } from "../generated/prisma/client.js";
import { defineScopeKind } from "../common/scope-kinds.js";
import { groupsById, loadGroupRoles } from "./membership.js";

/**
 * `scope=group`, `scope_id` = the group's id: the group must exist; its members see its private records
 * and write in it; its managers manage every record in it.
 */
export const GROUP_SCOPE = defineScopeKind({
  name: "group",
  exists: async (ctx, groupId) => (await groupsById(ctx).load(groupId)) !== null,
  // Members only (managers are members with a flag; invitees and applicants are not members yet), as
  // loadGroupRoles reads them; served by the (user_id, status, group_id) index.
  members: (userId) => Prisma.sql`SELECT group_id FROM group_members WHERE user_id = ${userId} AND status = 'member'`,
  mayWrite: async (ctx, groupId) => (await loadGroupRoles(ctx)).member.has(groupId),
  writeRefused: "Only members of this group can write in it.",
  mayManage: async (ctx, groupId) => (await loadGroupRoles(ctx)).manager.has(groupId),
});

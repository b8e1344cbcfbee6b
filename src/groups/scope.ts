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
  // The rows loadGroupRoles reads as memberships (managers are members too), as a sub-select.
  members: (userId) => Prisma.sql`SELECT group_id FROM group_members WHERE user_id = ${userId} AND role IN ('member', 'manager')`,
  mayWrite: async (ctx, groupId) => (await loadGroupRoles(ctx)).member.has(groupId),
  writeRefused: "Only members of this group can write in it.",
  mayManage: async (ctx, groupId) => (await loadGroupRoles(ctx)).manager.has(groupId),
});

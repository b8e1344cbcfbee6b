import DataLoader from "dataloader";
import type { RequestContext } from "../common/context.js";
import { byKeys, defineLoader } from "../common/loaders.js";

export interface GroupRoles {
  /** Groups the viewer is a member of (managers are members too). */
  member: Set<number>;
  /** Groups the viewer manages. */
  manager: Set<number>;
}

/** Group roles by user id: one statement for every user asked about while resolving a request. */
const groupRolesByUser = defineLoader(
  (ctx) =>
    new DataLoader<number, GroupRoles>(async (userIds) => {
      // Invitees and applicants are not members: only status=member rows count.
      const rows = await ctx.db.groupMember.findMany({
        where: { userId: { in: [...userIds] }, status: "member" },
        select: { userId: true, groupId: true, manager: true },
      });
      return userIds.map((userId) => {
        const roles: GroupRoles = { member: new Set(), manager: new Set() };
        for (const row of rows.filter((candidate) => candidate.userId === userId)) {
          roles.member.add(row.groupId);
          if (row.manager) roles.manager.add(row.groupId);
        }
        return roles;
      });
    }),
);

/** The caller's group roles (none for anonymous callers), loaded at most once per request. */
export async function loadGroupRoles(ctx: RequestContext): Promise<GroupRoles> {
  const user = ctx.viewer.user;
  return user ? groupRolesByUser(ctx).load(user.id) : { member: new Set(), manager: new Set() };
}

/** Groups by id (existence checks while writing into group scopes), batched per request. */
export const groupsById = defineLoader(
  (ctx) =>
    new DataLoader<number, { id: number } | null>(async (ids) =>
      byKeys(ids, await ctx.db.group.findMany({ where: { id: { in: [...ids] } }, select: { id: true } }), (group) => group.id),
    ),
);

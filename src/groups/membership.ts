import type { PrismaClient } from "../generated/prisma/client.js";
import type { GroupRoles, Viewer } from "../common/context.js";

/** Loads the viewer's memberships in one query. */
export async function loadGroupRoles(db: PrismaClient, viewer: Viewer): Promise<GroupRoles> {
  const roles: GroupRoles = { member: new Set(), manager: new Set() };
  if (!viewer.user) return roles;
  const rows = await db.groupMember.findMany({
    where: { userId: viewer.user.id, role: { in: ["member", "manager"] } },
    select: { groupId: true, role: true },
  });
  for (const row of rows) {
    roles.member.add(row.groupId);
    if (row.role === "manager") roles.manager.add(row.groupId);
  }
  return roles;
}

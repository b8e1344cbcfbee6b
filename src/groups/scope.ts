import { Prisma } from "../generated/prisma/client.js";
import { defineScopeKind } from "../common/scope-kinds.js";

/** The groups a user is a member of, as a sub-select. */
export const groupsOfMember = (userId: number) => Prisma.sql`SELECT group_id FROM group_members WHERE user_id = ${userId} AND status = 'member'`;

/** The groups a user manages, as a sub-select (managers are members with the flag). */
export const groupsManagedBy = (userId: number) => Prisma.sql`SELECT group_id FROM group_members WHERE user_id = ${userId} AND status = 'member' AND manager`;

/**
 * `scope=group`, `scope_id` = the group's id: the group must exist; its members see its private records
 * and write in it; its managers manage every record in it.
 */
export const GROUP_SCOPE = defineScopeKind({
  name: "group",
  // FOR KEY SHARE: a write putting a record into the group holds the group until it commits, so a group
  // being deleted (which locks its row FOR UPDATE first) either waits for the write and takes its record
  // with it, or is gone by the time the write looks, and the write is refused (test/group-deletion.test.ts).
  exists: (groupId) => Prisma.sql`EXISTS (SELECT 1 FROM groups WHERE id = ${groupId} FOR KEY SHARE)`,
  // Members only (managers are members with a flag; invitees and applicants are not members yet), served
  // by the (user_id, status, group_id) index. Members also write in it.
  members: groupsOfMember,
  writers: groupsOfMember,
  writeRefused: "Only members of this group can write in it.",
  managers: (userId) => groupsManagedBy(userId),
});

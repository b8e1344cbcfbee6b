import { Prisma } from "../generated/prisma/client.js";
import { defineScopeKind, membershipRelation, type Relation, type UserRef } from "../common/scope-kinds.js";

/** A hidden group's `discoverability` (GROUP_DISCOVERABILITY's private level, src/groups/records.ts). */
export const HIDDEN = 1;

/**
 * The hidden groups whose content `userId` may not see (null: an anonymous caller: every hidden group):
 * all but those they are a member of. Invitees and applicants are not members: an invitee may read the
 * group itself (to accept), not its content (docs/decisions.md, "Groups"). Asked about one id at a time
 * (`WHERE id = …`): a lookup by the primary key, and, for a hidden group only, one in group_members'.
 */
export const hiddenGroupsSecludedFrom = (userId: UserRef | null) =>
  userId === null
    ? Prisma.sql`SELECT sg.id FROM groups sg WHERE sg.discoverability = ${HIDDEN}`
    : Prisma.sql`SELECT sg.id FROM groups sg WHERE sg.discoverability = ${HIDDEN}
        AND NOT EXISTS (SELECT 1 FROM group_members sm WHERE sm.group_id = sg.id AND sm.user_id = ${userId} AND sm.status = 'member')`;

/**
 * A group's members (managers are members with a flag; invitees and applicants are not members yet), served
 * by the (user_id, status, group_id) index; members also write in it. FOR SHARE inside a write (scopeWriteCheck):
 * the membership row is locked, so a removal or a status change committed while the write waited (on the group
 * row) is seen, not the write's older snapshot: a member removed first cannot write after
 * (test/scope-write-check.test.ts, PostgreSQL). Only the membership in the group written to: the user's others
 * stay unlocked (locking every one took a lock, a tuple write, on each of them per write, and held up their
 * other groups' transitions).
 */
const MEMBERS = membershipRelation({ table: "group_members", scopeColumn: "group_id", held: Prisma.sql`status = 'member'` });

/**
 * Its managers, locked as members are inside writes (scopeWriteCheck for managers-only writes such as
 * announcements, and the statement that locks the record a write changes), so a demotion or removal committed
 * while the write waited is seen: a manager demoted first cannot write after (test/scope-write-check.test.ts,
 * PostgreSQL); so are a forum's pinning and closing and a webhook endpoint's registration. Unlocked elsewhere: the
 * posts a forum's moderators read, whether a webhook endpoint's owner still receives, who hears of a join request.
 */
const MANAGERS = membershipRelation({ table: "group_members", scopeColumn: "group_id", held: Prisma.sql`status = 'member' AND manager` });

/** The groups a user manages, as a sub-select (managers are members with the flag); `userId` may be a column (a correlated sub-select). */
export const groupsManagedBy = MANAGERS.scopesOf;

/** Who reads a hidden group itself: its members and its invitees (an invitee may read the group that invited them). */
const READER_STATUSES = Prisma.sql`status IN ('member', 'invitee')`;

/** Members and invitees: they read the group (not its content), served by the same index as members. */
const READERS: Relation = {
  scopesOf: (userId) => Prisma.sql`SELECT group_id FROM group_members WHERE user_id = ${userId} AND ${READER_STATUSES}`,
  usersOf: (groupId) => Prisma.sql`SELECT user_id FROM group_members WHERE group_id = ${groupId} AND ${READER_STATUSES}`,
};

/**
 * `scope=group`, `scope_id` = the group's id: the group must exist; its members see its private records
 * and write in it; its managers manage every record in it; a hidden group's records are secluded from
 * everyone else.
 */
export const GROUP_SCOPE = defineScopeKind({
  name: "group",
  // FOR KEY SHARE: a write putting a record into the group holds the group until it commits, so a group
  // being deleted (which locks its row FOR UPDATE first) either waits for the write and takes its record
  // with it, or is gone by the time the write looks, and the write is refused (test/group-deletion.test.ts).
  exists: (groupId) => Prisma.sql`EXISTS (SELECT 1 FROM groups WHERE id = ${groupId} FOR KEY SHARE)`,
  // Members only (managers are members with a flag; invitees and applicants are not members yet), served
  // by the (user_id, status, group_id) index. Members also write in it.
  members: MEMBERS,
  writers: MEMBERS,
  writeRefused: "Only members of this group can write in it.",
  managers: MANAGERS,
  // A group is itself a scope of this kind (src/groups/records.ts, isScope): its invitees read it too.
  readers: READERS,
  // A hidden group's records, at every level, are its members' (and administrators'; creators keep their own).
  secluded: hiddenGroupsSecludedFrom,
  secludedBy: ["discoverability"],
});

import { Prisma } from "../generated/prisma/client.js";
import { defineScopeKind, membershipRelation, type UserRef } from "../common/scope-kinds.js";

/** An open course (Course.visibility: published and public): its content is open to whoever its records' levels admit. */
const OPEN_COURSE = 0;

/**
 * A course's members: its learners and its managers, served by the (user_id, role, course_id) index. FOR
 * SHARE inside a write: the membership row is locked, so a removal committed while the write waited is seen,
 * not the write's older snapshot (as the group scope's, src/groups/scope.ts). Only the row of the course
 * written to.
 */
const MEMBERS = membershipRelation({ table: "course_members", scopeColumn: "course_id" });

/** Its managers: they edit the course and write everything in it (units, asset groups, assets, prerequisites). */
const MANAGERS = membershipRelation({ table: "course_members", scopeColumn: "course_id", held: Prisma.sql`role = 'manager'` });

/**
 * The closed courses (unpublished or private) whose content `userId` may not see (null: an anonymous caller:
 * every closed course): all but those they belong to. Asked about one id at a time (`WHERE id = …`): a lookup by
 * the primary key, and, for a closed course only, one in course_members'.
 */
const closedCoursesSecludedFrom = (userId: UserRef | null) =>
  userId === null
    ? Prisma.sql`SELECT sc.id FROM courses sc WHERE sc.visibility <> ${OPEN_COURSE}`
    : Prisma.sql`SELECT sc.id FROM courses sc WHERE sc.visibility <> ${OPEN_COURSE}
        AND NOT EXISTS (SELECT 1 FROM course_members sm WHERE sm.course_id = sc.id AND sm.user_id = ${userId})`;

/**
 * `scope=course`, `scope_id` = the course's id: the course must exist; its members (learners and managers)
 * see its private records; only its managers write in it and they manage every record in it; a closed course's
 * records (unpublished or private) are secluded from everyone else (administrators excepted, as everywhere).
 */
export const COURSE_SCOPE = defineScopeKind({
  name: "course",
  // FOR KEY SHARE: a write putting a record into the course holds the course until it commits, so a course
  // being deleted either waits for the write and takes its record with it, or is gone and the write is refused.
  exists: (courseId) => Prisma.sql`EXISTS (SELECT 1 FROM courses WHERE id = ${courseId} FOR KEY SHARE)`,
  members: MEMBERS,
  writers: MANAGERS,
  writeRefused: "Only the course's managers can write in it.",
  managers: MANAGERS,
  secluded: closedCoursesSecludedFrom,
  // The course's fields its visibility is kept from (src/courses/area.ts), and the column itself.
  secludedBy: ["state", "access", "visibility"],
});

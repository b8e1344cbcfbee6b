import { Prisma, type Course } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { ApiError, badInput } from "../common/errors.js";
import { changedRecord } from "../common/record-reads.js";
import type { Selection } from "../common/row-reading.js";
import { changeRecord } from "../common/write-path.js";
import { accountNamed } from "../users/names.js";
import { COURSE_AREA, COURSES } from "./area.js";

/** What happens to a person's standing with a course. */
export type CoursePeopleChange =
  | { role: "learner"; offeringId: number; sectionId?: number | null }
  | { role: "manager" }
  | { role: null };

/**
 * Enrols a learner, adds a manager, or takes someone off a course: a change of the course (its row locked, the
 * caller authorized on it as for any change: the course's managers and administrators; 404 for a course the caller
 * may not know, 403 for one they may but do not manage — both before the person is looked up), with its event
 * told to the course's managers and the person. A learner is in one offering of the course and, optionally, one
 * section of that offering (400 naming `offering` or `section` otherwise); enrolling someone again moves them.
 * Answers the course as the caller may read it (null: no longer, as a manager who took themselves off a closed course).
 */
export async function changeCoursePeople(ctx: RequestContext, courseId: number, user: string, change: CoursePeopleChange, query?: Selection): Promise<Course | null> {
  const events = COURSE_AREA.eventsNamed;
  await changeRecord<Course>(ctx, COURSE_AREA.writesOf, courseId, {
    event: events.courseUpdated,
    async change(tx, course) {
      const subject = await accountNamed(tx, user);
      if (change.role === null) {
        const gone = await tx.tx.query(Prisma.sql`DELETE FROM course_members WHERE course_id = ${courseId} AND user_id = ${subject} RETURNING user_id`);
        if (!gone.length) throw new ApiError(404, `${user} is not in this course.`, [{ parameter: "user", message: "is neither a learner nor a manager of this course" }]);
        return { row: course, changed: ["members"], subjectId: subject, event: events.memberRemoved };
      }
      if (change.role === "manager") {
        await tx.tx.query(Prisma.sql`INSERT INTO course_members (course_id, user_id, role) VALUES (${courseId}, ${subject}, 'manager')
          ON CONFLICT (course_id, user_id) DO UPDATE SET role = 'manager', offering_id = NULL, section_id = NULL`);
        return { row: course, changed: ["members"], subjectId: subject, event: events.managerAdded };
      }
      // The offering must be this course's and the section that offering's (held until the write commits).
      const [placed] = await tx.tx.query<{ offering: boolean; section: boolean }>(
        Prisma.sql`SELECT EXISTS (SELECT 1 FROM course_offerings WHERE id = ${change.offeringId} AND scope_id = ${courseId} FOR KEY SHARE) AS offering,
                          ${change.sectionId == null ? Prisma.sql`TRUE` : Prisma.sql`EXISTS (SELECT 1 FROM course_sections WHERE id = ${change.sectionId} AND offering_id = ${change.offeringId} FOR KEY SHARE)`} AS section`,
      );
      if (!placed!.offering) throw badInput("offering", `Offering ${change.offeringId} is not an offering of this course.`);
      if (!placed!.section) throw badInput("section", `Section ${change.sectionId} is not a section of offering ${change.offeringId}.`);
      await tx.tx.query(Prisma.sql`INSERT INTO course_members (course_id, user_id, role, offering_id, section_id) VALUES (${courseId}, ${subject}, 'learner', ${change.offeringId}, ${change.sectionId ?? null})
        ON CONFLICT (course_id, user_id) DO UPDATE SET role = 'learner', offering_id = EXCLUDED.offering_id, section_id = EXCLUDED.section_id`);
      return { row: course, changed: ["members"], subjectId: subject, event: events.learnerEnrolled };
    },
  });
  return changedRecord<Course>(ctx, COURSES, courseId, query);
}

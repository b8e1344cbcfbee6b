import { Prisma } from "../generated/prisma/client.js";
import type { AreaTesting } from "../../test/areas.js";
import { contractOf, createThroughGraphql } from "../../test/area-kit.js";
import { COURSE_ACCESS, COURSE_AREA } from "./area.js";

let serial = 0;

/** A REST level (the documented number) as the GraphQL input takes it (the enum's name). */
const accessName = (value: unknown) => (typeof value === "number" ? COURSE_ACCESS.levels.find((level) => level.value === value)?.graphqlName ?? value : value);

export const testing: AreaTesting = {
  area: "courses",
  /** Transcribed by hand from shared/spec/community-platform-api.md ("Courses"; all 1.0). */
  documented: {
    "POST /courses/list 1.0": { limit: ["integer", false, 25], limitstart: ["integer", false, 0] },
    "POST /courses/asset/handlers 1.0": { name: ["string", true] },
  },
  /** Courses are made by administrators through GraphQL (the API document has no course create row). */
  async create(server, token, values = {}) {
    serial += 1;
    // The suites name a level by the rule's column (`visibility`: 0 open, 1 closed); a course is closed by its access here.
    const { access = values.visibility, visibility: _kept, ...rest } = values;
    const input = { title: `Course ${serial}`, alias: `course-${serial}-${Date.now().toString(36)}`, state: 1, ...rest, ...(access === undefined ? {} : { access: accessName(access) }) };
    return createThroughGraphql(server, token, "createCourse", "CreateCourseInput", input);
  },
  // The rest (rows, list, the access levels) is the declaration's (contractOf).
  contract: contractOf(COURSE_AREA, {
    table: "courses",
    // Administrators make courses; a course's managers (and administrators) change and delete it.
    writers: "users",
    creates: "administrators",
    notFound: (id) => `Course ${id} not found.`,
    // A course is closed by its access (or its state): `visibility` is kept from them.
    levelInput: (level) => ({ access: level === "public" ? "PUBLIC" : "PRIVATE" }),
    searchField: "title",
    searchAlso: "description",
    states: [
      { name: "published", published: true, values: { state: 1 } },
      { name: "unpublished", published: false, values: { state: 0 } },
    ],
    skips: {
      "contract records": "the API document has no course record rows (read, create, replace, delete): courses are made and changed through GraphQL, and their rules are the matrix's and src/courses/courses.test.ts",
    },
    privateTo: {
      async grant(server, id, userId) {
        await server.app.db.prisma.courseMember.create({ data: { courseId: id, userId, role: "learner" } });
      },
      async revoke(server, id, userId) {
        await server.app.db.prisma.courseMember.delete({ where: { courseId_userId: { courseId: id, userId } } });
      },
    },
    plan: {
      // Unique aliases; 4 % private, 10 % unpublished (14 % closed); the member (authors[2]) learns in every 7th course.
      seed: (rows, { authors }) => Prisma.sql`WITH made AS (
          INSERT INTO courses (alias, title, description, state, access, visibility, created, created_by, modified)
          SELECT 'plan-' || g, CASE WHEN g % 97 = 0 THEN 'Zephyr course ' ELSE 'Course ' END || g, 'About course ' || g,
                 CASE WHEN g % 10 = 0 THEN 0 ELSE 1 END, CASE WHEN g % 25 = 0 THEN 1 ELSE 0 END, CASE WHEN g % 10 = 0 OR g % 25 = 0 THEN 1 ELSE 0 END,
                 (now() AT TIME ZONE 'UTC') - g * interval '1 minute', (ARRAY[${Prisma.join(authors)}]::int[])[1 + g % ${authors.length}], now() AT TIME ZONE 'UTC'
            FROM generate_series(1, ${rows}) g
          RETURNING id)
        INSERT INTO course_members (course_id, user_id, role) SELECT id, ${authors[2]!}, 'learner' FROM made WHERE id % 7 = 0`,
    },
  }),
};

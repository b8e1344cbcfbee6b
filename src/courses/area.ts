import { z } from "zod";
import { accessLevels, PUBLISH_STATE } from "../common/access.js";
import { defineArea } from "../common/area.js";
import { accessField, stateField } from "../common/fields.js";
import { records } from "../common/records.js";
import { aliasFromTitle } from "../common/slug.js";

/** A course's documented access: public or private (its members only). */
export const COURSE_ACCESS = accessLevels(
  "CourseAccess",
  [
    { value: 0, level: "public" },
    { value: 1, level: "private" },
  ],
  0,
);

/**
 * Who sees a course and what is in it, one level kept from its state and access (`visibility`): open — published
 * and public — to everyone; closed — unpublished or private — to its members (learners and managers) and
 * administrators, as a hidden group is to its members (src/courses/scope.ts secludes a closed course's content).
 */
export const COURSE_VISIBILITY = accessLevels(
  "CourseVisibility",
  [
    { value: 0, level: "public", graphqlName: "OPEN", label: "open" },
    { value: 1, level: "private", graphqlName: "CLOSED", label: "closed" },
  ],
  1,
);

/** A course's visibility from its state and access (the column's CHECK says the same). */
export const courseVisibility = (state: number, access: number) => (state === 1 && access === 0 ? 0 : 1);

/**
 * Courses and who sees them — THE rule (the course scope kind, src/courses/scope.ts, reads the same column):
 * administrators all; everyone an open course; its members a closed one. Its managers change it (the record is
 * its own scope); its content follows the course scope kind.
 */
export const COURSES = records({
  model: "Course",
  scoped: false,
  // Each course is the scope `course` of its own id: its events are in it, so a closed course's are its members'.
  isScope: "course",
  // Always 1: a course is never "unpublished" for the rule, it is closed (`visibility`).
  published: { field: "published", value: 1 },
  access: COURSE_VISIBILITY,
  accessField: "visibility",
});

const alias = z
  .string()
  .trim()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/, "must be lowercase letters, digits and hyphens (at most 100), not beginning or ending with a hyphen");

/**
 * Courses, declared once (src/common/area.ts): the catalogue (`POST /courses/list`, the API document's only
 * course row that is not about a course's content) and the GraphQL to make and change them. Administrators
 * create courses (the contract); a course's managers and administrators change and delete it.
 */
export const COURSE_AREA = defineArea({
  area: "courses",
  model: "Course",
  plural: "courses",
  label: "Course",
  description: "A course of the catalogue: a scope (scope course, scope id = the course's id) whose members are its learners and managers.",
  policy: COURSES,
  fields: {
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true },
    alias: { type: "String", rule: alias, description: "The course's name in its URLs; unique; derived from the title when absent." },
    description: { type: "String", rule: z.string().max(65_536) },
    state: stateField,
    access: accessField(COURSE_ACCESS),
  },
  // Kept from state and access for the rule (and always 1): not shown.
  hidden: ["visibility", "published"],
  shown: {
    id: true,
    title: true,
    description: true,
    alias: "The course's name in its URLs; unique.",
    state: PUBLISH_STATE.description,
    access: { levels: COURSE_ACCESS, description: COURSE_ACCESS.description },
    url: { type: "String", description: "The course's path on the site.", resolve: (course: { alias: string }) => `/courses/${course.alias}` },
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
    // Null once the creator's account is gone (SET NULL).
    createdBy: { relation: true, nullable: true },
  },
  list: {
    description: "The course catalogue: the courses the caller may see, paged like POST /api/courses/list.",
    sortColumns: { id: "id", title: "title", alias: "alias", created: "created", modified: "modified" },
    defaults: { sort: "title", sortDir: "asc", limit: 25 },
    search: { in: "title or description", fields: ["title", "description"] },
  },
  read: { description: "One course the caller may see." },
  writes: {
    by: "users",
    creates: "administrators",
    forbidden: "Only the course's managers or an administrator can change this course.",
    names: ["title", "alias"],
    conflict: { parameter: "alias", message: "This alias is taken by another course.", column: "alias" },
    // Its visibility from its state and access as they will be; a new course without an alias takes one from its
    // title (a taken one is the 409 naming `alias`).
    derived: (data, row) => ({
      visibility: courseVisibility((data.state ?? row?.state ?? 0) as number, (data.access ?? row?.access ?? COURSE_ACCESS.fallback) as number),
      ...(row || data.alias !== undefined ? {} : { alias: aliasFromTitle(data.title as string).slice(0, 100).replace(/-+$/, "") }),
    }),
    // Deleting a course deletes everything in its scope, as deleting a group does (the kit's, for a record that is
    // a scope: src/common/scope-content.ts); its offerings, sections and members go with it (cascade).
    create: "Makes a course (administrators only); it starts unpublished unless `state` says 1.",
    update: "Only the given fields change.",
    remove: "Deletes the course and everything in its scope; returns its id.",
  },
  events: {
    courseCreated: "A course was created.",
    courseUpdated: "A course's fields changed; `changed` names them.",
    courseDeleted: "A course was deleted, with its offerings, sections and members, and everything in its scope (each record with its own deleted event, in the same transaction).",
    learnerEnrolled: { description: "A course's manager enrolled someone as a learner (or moved them to another offering or section); `subjectId` is the learner.", audience: "managers" },
    managerAdded: { description: "Someone became one of a course's managers; `subjectId` is who.", audience: "managers" },
    memberRemoved: { description: "Someone was taken off a course (a learner or a manager); `subjectId` is who.", audience: "managers" },
  },
  rest: {
    versions: ["1.0"],
    list: {
      path: "/courses/list",
      method: "POST",
      task: "list the course catalog",
      key: "courses",
      extra: { success: true },
      // The API document's list takes a page only: `limit` and `limitstart`.
      documented: { limit: true, start: "limitstart" },
    },
  },
});

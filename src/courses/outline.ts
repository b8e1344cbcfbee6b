import { z } from "zod";
import { PUBLISH_STATE } from "../common/access.js";
import { defineArea } from "../common/area.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { stateField } from "../common/fields.js";
import { records } from "../common/records.js";
import { timestamp } from "../common/validation.js";
import { deleteRecordsWhere } from "../common/write-path.js";
import { Prisma } from "../generated/prisma/client.js";

/**
 * A course's outline (docs/decisions.md, "The course outline"): offerings run the course, sections split an
 * offering, units sit in an offering, asset groups in a unit (possibly under another group), and assets in asset
 * groups, units or offerings (several at once). Every record of it is in its course's scope (scope "course", scope
 * id = the course's id), so the course scope kind (src/courses/scope.ts) decides who sees it (a closed course's
 * are its members') and who writes it (its managers and administrators); its managers see every record of it
 * whatever its state (`moderatedBy`). A unit, asset group or asset in no course yet is the site's (scope "site"
 * 0): only administrators write those, and it joins a course when it is put in a container of one.
 *
 * Declared leaf first: a deleted course's scope contents are removed in this order (src/common/scope-content.ts),
 * so each record goes with its own event before a parent's foreign key could cascade it away unannounced.
 */

const OUTLINE_WRITERS = "Only the course's managers or an administrator can change its outline.";

const title = (fallback: string) => ({
  type: "String" as const,
  rule: z.string().trim().min(1, "must not be empty").max(255),
  default: fallback,
  description: `Default "${fallback}".`,
});

/** An alias in a URL of the course's outline (an offering's, a section's). */
const outlineAlias = z
  .string()
  .trim()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/, "must be lowercase letters, digits and hyphens (at most 100), not beginning or ending with a hyphen");

/** The outline's records: published at state 1, every one to the course's managers. */
const outlineRecords = (model: Prisma.ModelName, more: { window?: { up: string; down: string }; creator?: string } = {}) =>
  records({ model, scoped: true, published: { field: "state", value: 1 }, moderatedBy: "managers", counted: false, ...more });

/** The outline's publishing state: published (1) unless `state` says otherwise. */
const publishedByDefault = { ...stateField, default: 1, description: `${PUBLISH_STATE.description} Default 1.`, rest: false } as const;

/**
 * A record made in no parent (`within.optional`: the site's) starts unpublished unless `state` says otherwise: an
 * administrator's draft, not shown to everyone the moment it is made.
 */
const draftWithoutParent = (parentField: string) => (data: Record<string, unknown>, row?: Record<string, unknown>) =>
  row || data[parentField] != null || data.state != null ? {} : { state: 0 };

/** The containers an asset sits in (`course_asset_associations.container`), as the API document names them. */
export const ASSET_CONTAINERS = ["asset_group", "unit", "offering"] as const;
export type AssetContainer = (typeof ASSET_CONTAINERS)[number];

/** Takes every asset out of these containers (the asset stays, in its course, wherever else it sits). */
export const emptyContainers = (tx: RequestContext, container: AssetContainer, ids: number[]) =>
  ids.length ? sqlOf(tx).query(Prisma.sql`DELETE FROM course_asset_associations WHERE container = ${container} AND container_id = ANY(${ids}::int[])`) : Promise.resolve();

/** An asset's type: a file comes with an upload (POST /api/courses/asset/new); the others are what they name. */
export const ASSET_TYPES = ["file", "link", "object", "wiki", "tool"] as const;

/** 0 unpublished, 1 published, 2 deleted (kept for grades; togglepublished makes it 0), as the original. */
const assetState = z.union([z.literal(0), z.literal(1), z.literal(2)], "must be 0 (unpublished), 1 (published) or 2 (deleted)");

/** Assets (course_assets): in their course's scope, or the site's while in none. */
export const COURSE_ASSETS_AREA = defineArea({
  area: "courseAssets",
  model: "CourseAsset",
  plural: "courseAssets",
  label: "Course asset",
  description: "Something a course's learners read, watch or do: a file, a link, an object, a wiki page, a tool. It sits in asset groups, units or offerings of its course.",
  policy: outlineRecords("CourseAsset", { creator: "createdById" }),
  fields: {
    scope: { type: "String", rule: z.enum(["course", "site"], 'must be "course" or "site" (an asset in no course yet: administrators only)'), default: "site", only: "create", rest: false, description: 'Its course ("course") or none yet ("site", administrators only). Default "site".' },
    scopeId: { type: "Int", rule: z.number().int().min(0), default: 0, only: "create", rest: false, description: "The course's id (0 with scope site)." },
    title: title("New asset"),
    type: { type: "String", rule: z.enum(ASSET_TYPES.filter((type) => type !== "file") as ["link", "object", "wiki", "tool"], "must be link, object, wiki or tool (a file comes with an upload)"), required: "create", only: "create", rest: false },
    subtype: { type: "String", rule: z.string().trim().max(100), default: "", rest: false },
    content: { type: "String", rule: z.string().max(65_536), default: "", rest: false, description: "A link's URL, an object's embed code, a wiki page's name, a tool's name." },
    state: { type: "Int", rule: assetState, default: 0, description: "0 unpublished (default), 1 published, 2 deleted.", rest: false },
  },
  shown: {
    id: true,
    title: true,
    type: "file, link, object, wiki or tool.",
    subtype: true,
    content: true,
    state: "0 unpublished, 1 published, 2 deleted.",
    scope: true,
    scopeId: true,
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
  },
  read: { description: "One course asset the caller may see." },
  writes: {
    by: "managers",
    forbidden: OUTLINE_WRITERS,
    names: ["title", "type"],
    update: "Only the given fields change.",
    remove: "Deletes the asset from every container it sits in.",
  },
  events: {
    assetCreated: "A course asset was created.",
    assetUpdated: "A course asset's fields changed (state, title, …) or it was put in or taken out of a container; `changed` names them.",
    assetDeleted: "A course asset was deleted.",
  },
});

/** How deep the removal of groups under groups walks (parents are set once, at creation, so the tree has no cycle; this bounds it all the same). */
const MAX_GROUP_DEPTH = 100;

/** The asset groups of these units, and the groups under them, taken with their events; then the units' and the groups' assets leave them. */
async function removeAssetGroups(tx: RequestContext, where: { unitId: number[] } | { parentId: number[] }): Promise<void> {
  const column = "unitId" in where ? "unit_id" : "parent";
  const ids = "unitId" in where ? where.unitId : where.parentId;
  if (!ids.length) return;
  // Every group under them, deepest first: each goes with its own event before a parent's cascade could take it.
  const rows = await sqlOf(tx).query<{ id: number; depth: number }>(
    Prisma.sql`WITH RECURSIVE tree AS (SELECT id, 0 AS depth FROM course_asset_groups WHERE ${Prisma.raw(column)} = ANY(${ids}::int[])
                 UNION ALL SELECT g.id, tree.depth + 1 FROM course_asset_groups g JOIN tree ON g.parent = tree.id WHERE tree.depth < ${MAX_GROUP_DEPTH})
               SELECT id, max(depth)::int AS depth FROM tree GROUP BY id ORDER BY 2 DESC`,
  );
  for (const depth of [...new Set(rows.map((row) => row.depth))]) {
    const level = rows.filter((row) => row.depth === depth).map((row) => row.id);
    await emptyContainers(tx, "asset_group", level);
    await deleteRecordsWhere(tx, COURSE_ASSET_GROUPS_AREA.writesOf, { id: level }, COURSE_ASSET_GROUPS_AREA.eventTypes.deleted);
  }
}

/** `params` of an asset group: a flat map of options (the original's `params[…]`), small. */
const groupParams = z
  .record(z.string().max(100), z.union([z.string().max(1_000), z.number(), z.boolean()]), "must be a map of option names to strings, numbers or booleans")
  .refine((params) => Object.keys(params).length <= 50, "must have at most 50 options");

/** Asset groups (course_asset_groups): in a unit, possibly under another group. */
export const COURSE_ASSET_GROUPS_AREA = defineArea({
  area: "courseAssetGroups",
  model: "CourseAssetGroup",
  plural: "courseAssetGroups",
  label: "Asset group",
  description: "A group of a unit's assets (Lectures, Homework, …), possibly under another group of the same unit.",
  policy: outlineRecords("CourseAssetGroup", { creator: "createdById" }),
  within: { field: "unitId", model: "CourseUnit", label: "Unit", optional: true },
  references: [{ field: "parentId", model: "CourseAssetGroup", label: "Asset group" }],
  fields: {
    unitId: { type: "Int", rule: z.number().int().min(1), rest: false, description: "Its unit (absent: in none yet, administrators only)." },
    // Given when the group is made only: a group never moves under another, so the tree has no cycle.
    parentId: { type: "Int", rule: z.number().int().min(1), only: "create", rest: false, description: "The group it sits under, of the same course (absent: the unit's top level). Set when the group is made." },
    title: title("New asset group"),
    description: { type: "String", rule: z.string().max(65_536), default: "", rest: false },
    state: publishedByDefault,
    params: { type: "JSON", rule: groupParams, rest: false, description: "Options (a map of names to strings, numbers or booleans)." },
    ordering: { type: "Int", rule: z.number().int(), default: 0, rest: false },
  },
  shown: {
    id: true,
    unitId: true,
    parentId: { rest: "parent" },
    title: true,
    description: true,
    state: PUBLISH_STATE.description,
    params: true,
    ordering: true,
    scope: true,
    scopeId: true,
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
  },
  read: { description: "One asset group the caller may see." },
  writes: {
    by: "managers",
    forbidden: OUTLINE_WRITERS,
    names: ["title", "unitId"],
    derived: draftWithoutParent("unitId"),
    update: "Only the given fields change.",
    remove: "Deletes the group and the groups under it; their assets leave them (and stay in the course).",
    removes: async (tx, id) => {
      await removeAssetGroups(tx, { parentId: [id] });
      await emptyContainers(tx, "asset_group", [id]);
    },
  },
  events: {
    assetGroupCreated: "An asset group was created.",
    assetGroupUpdated: "An asset group's fields changed; `changed` names them.",
    assetGroupDeleted: "An asset group was deleted, with the groups under it.",
  },
});

/** Units (course_units): in an offering (and a section of it), with a publishing window. */
export const COURSE_UNITS_AREA = defineArea({
  area: "courseUnits",
  model: "CourseUnit",
  plural: "courseUnits",
  label: "Unit",
  description: "A unit of a course's offering (a week, a chapter): its asset groups hold its assets. Shown within its publishing window.",
  policy: outlineRecords("CourseUnit", { creator: "createdById", window: { up: "publishUp", down: "publishDown" } }),
  within: { field: "offeringId", model: "CourseOffering", label: "Offering", optional: true },
  references: [{ field: "sectionId", model: "CourseSection", label: "Section" }],
  fields: {
    offeringId: { type: "Int", rule: z.number().int().min(1), rest: false, description: "Its offering (absent: in none yet, administrators only)." },
    sectionId: { type: "Int", rule: z.number().int().min(1), rest: false, description: "The section of the offering it is for (absent: every section)." },
    title: title("New Unit"),
    state: publishedByDefault,
    publishUp: { type: "DateTime", rule: timestamp, description: "Start of the publishing window; default now.", default: "now", rest: false },
    publishDown: { type: "DateTime", rule: timestamp, description: "End of the publishing window; null: open-ended.", clearedTo: null, rest: false },
    ordering: { type: "Int", rule: z.number().int(), default: 0, rest: false },
  },
  shown: {
    id: true,
    offeringId: true,
    sectionId: true,
    title: true,
    state: PUBLISH_STATE.description,
    publishUp: "Start of the publishing window.",
    publishDown: "End of the publishing window; null: open-ended.",
    ordering: true,
    scope: true,
    scopeId: true,
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
  },
  read: { description: "One unit the caller may see." },
  writes: {
    by: "managers",
    forbidden: OUTLINE_WRITERS,
    names: ["title", "offeringId"],
    derived: draftWithoutParent("offeringId"),
    create: "Makes a unit with the default asset groups (COURSE_DEFAULT_ASSET_GROUPS; Lectures, Homework and Exam unless set), each with its event.",
    update: "Only the given fields change.",
    remove: "Deletes the unit and its asset groups; their assets leave them (and stay in the course).",
    async alongside(tx, unit) {
      // A unit in no course yet gets none: it joins a course empty (src/common/area.ts), and groups are made there.
      if (unit.scope !== "course") return;
      for (const [ordering, name] of tx.config.courseDefaultAssetGroups.entries()) {
        await COURSE_ASSET_GROUPS_AREA.createRecord(tx, { unitId: unit.id, title: name, ordering });
      }
    },
    removes: async (tx, id) => {
      await removeAssetGroups(tx, { unitId: [id] });
      await emptyContainers(tx, "unit", [id]);
    },
  },
  events: {
    unitCreated: "A unit was created (its default asset groups raise their own events).",
    unitUpdated: "A unit's fields changed; `changed` names them.",
    unitDeleted: "A unit was deleted, with its asset groups.",
  },
});

/** Sections (course_sections): an offering's; learners enrol in one. */
export const COURSE_SECTIONS_AREA = defineArea({
  area: "courseSections",
  model: "CourseSection",
  plural: "courseSections",
  label: "Section",
  description: "A section of a course's offering: learners enrol in one.",
  policy: outlineRecords("CourseSection"),
  within: { field: "offeringId", model: "CourseOffering", label: "Offering" },
  fields: {
    offeringId: { type: "Int", rule: z.number().int().min(1), required: "create", only: "create", rest: false },
    alias: { type: "String", rule: outlineAlias, required: "create", rest: false, description: "Unique within the offering." },
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", rest: false },
    state: publishedByDefault,
  },
  shown: { id: true, offeringId: true, alias: true, title: true, state: PUBLISH_STATE.description, scope: true, scopeId: true, created: true, modified: true },
  read: { description: "One section the caller may see." },
  writes: {
    by: "managers",
    forbidden: OUTLINE_WRITERS,
    conflict: { parameter: "alias", message: "This alias is taken in this offering.", column: "alias" },
    names: ["alias", "title"],
    update: "Only the given fields change.",
    remove: "Deletes the section: its units are then for every section, and its learners' enrolments go with it.",
  },
  events: {
    sectionCreated: "A course section was created.",
    sectionUpdated: "A course section's fields changed; `changed` names them.",
    sectionDeleted: "A course section was deleted.",
  },
});

/** Offerings (course_offerings): runs of a course (a term); their units and sections go with them. */
export const COURSE_OFFERINGS_AREA = defineArea({
  area: "courseOfferings",
  model: "CourseOffering",
  plural: "courseOfferings",
  label: "Offering",
  description: "A run of a course (a term): its sections hold the enrolments, its units the material.",
  policy: outlineRecords("CourseOffering"),
  fields: {
    scope: { type: "String", rule: z.literal("course", 'must be "course"'), default: "course", only: "create", rest: false, description: 'Always "course".' },
    scopeId: { type: "Int", rule: z.number().int().min(1), required: "create", only: "create", rest: false, description: "The course's id." },
    alias: { type: "String", rule: outlineAlias, required: "create", rest: false, description: "Unique within the course (the outline's URLs name it)." },
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", rest: false },
    state: publishedByDefault,
  },
  shown: { id: true, alias: true, title: true, state: PUBLISH_STATE.description, scope: true, scopeId: { description: "The course's id.", rest: "course_id" }, created: true, modified: true },
  read: { description: "One offering the caller may see." },
  writes: {
    by: "managers",
    forbidden: OUTLINE_WRITERS,
    conflict: { parameter: "alias", message: "This alias is taken in this course.", column: "alias" },
    names: ["alias", "title"],
    update: "Only the given fields change.",
    remove: "Deletes the offering with its sections and units (and their asset groups); its learners' enrolments go with it.",
    async removes(tx, id) {
      const units = await sqlOf(tx).query<{ id: number }>(Prisma.sql`SELECT id FROM course_units WHERE offering_id = ${id}`);
      const unitIds = units.map((unit) => unit.id);
      await removeAssetGroups(tx, { unitId: unitIds });
      await emptyContainers(tx, "unit", unitIds);
      await emptyContainers(tx, "offering", [id]);
      await deleteRecordsWhere(tx, COURSE_UNITS_AREA.writesOf, { offeringId: id }, COURSE_UNITS_AREA.eventTypes.deleted);
      await deleteRecordsWhere(tx, COURSE_SECTIONS_AREA.writesOf, { offeringId: id }, COURSE_SECTIONS_AREA.eventTypes.deleted);
    },
  },
  events: {
    offeringCreated: "A course offering was created.",
    offeringUpdated: "A course offering's fields changed; `changed` names them.",
    offeringDeleted: "A course offering was deleted, with its sections and units.",
  },
});

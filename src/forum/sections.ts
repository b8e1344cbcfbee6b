import { z } from "zod";
import { defineArea } from "../common/area.js";
import { DEFAULT_SCOPE } from "../common/paging.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { deleteRecordsWhere } from "../common/write-path.js";
import { FORUM_CATEGORIES_AREA } from "./categories.js";
import { FORUM_POSTS_AREA } from "./area.js";
import { FORUM_STRUCTURE_WRITERS, forumAlias } from "./structure.js";

/** Forum sections (src/common/area.ts): a scope's sections hold its categories; listed to whoever may see the scope. */
export const FORUM_SECTIONS_AREA = defineArea({
  area: "forumSections",
  model: "ForumSection",
  plural: "forumSections",
  label: "Forum section",
  description: "A forum section of a scope: it holds categories.",
  policy: { scoped: true, published: { field: "published", value: 1 } },
  fields: {
    scope: { type: "String", rule: scopeKindField, description: 'Default "site".', default: DEFAULT_SCOPE.scope, only: "create", rest: false },
    scopeId: { type: "Int", rule: z.number().int().min(0), description: "Default 0.", default: DEFAULT_SCOPE.scopeId, only: "create", rest: false },
    alias: { type: "String", rule: forumAlias, required: "create", rest: false },
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", rest: false },
    ordering: { type: "Int", rule: z.number().int(), default: 0, rest: false },
  },
  shown: { id: true, alias: true, title: true, scope: true, scopeId: true, ordering: true, created: true, modified: true },
  // Sections have no unpublished state a write sets: the column is the kit's list counters'.
  hidden: ["published"],
  list: {
    description: "Forum sections of a scope, like GET /api/forum/sections.",
    sortColumns: { id: "id", title: "title", ordering: "ordering" },
    defaults: { sort: "id", sortDir: "asc", limit: 25 },
  },
  read: { description: "One forum section the caller may see." },
  writes: {
    by: "managers",
    forbidden: FORUM_STRUCTURE_WRITERS,
    conflict: { parameter: "alias", message: "This alias is taken in this scope.", column: "alias" },
    names: ["alias", "title"],
    update: "Only the given fields change.",
    remove: "Administrators and the group's managers: deletes the section, its categories and their posts.",
    // Its categories' posts, then its categories, each with its own deleted event (the foreign keys' cascade would take them silently).
    async removes(tx, id, row) {
      // By the section's scope too: the posts' (scope, scope_id, section_id, id) index, not a walk of every post.
      await deleteRecordsWhere(tx, FORUM_POSTS_AREA.writesOf, { scope: row.scope as string, scopeId: row.scopeId as number, sectionId: id }, FORUM_POSTS_AREA.eventTypes.deleted);
      await deleteRecordsWhere(tx, FORUM_CATEGORIES_AREA.writesOf, { sectionId: id }, FORUM_CATEGORIES_AREA.eventTypes.deleted);
    },
  },
  events: {
    sectionCreated: "A forum section was created.",
    sectionUpdated: "A forum section's fields changed; `changed` names them.",
    sectionDeleted: "A forum section was deleted, with its categories and their posts.",
  },
  rest: {
    versions: ["1.0"],
    // The documented list takes the scope only: one page of up to 100 sections.
    list: { path: "/forum/sections", documentedIn: "forum-sections", task: "list sections", key: "sections", extra: { success: true }, documented: { scope: true, scope_id: true }, fixed: { limit: 100 } },
  },
});

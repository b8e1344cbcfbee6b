import { z } from "zod";
import { defineArea } from "../common/area.js";
import { DEFAULT_SCOPE } from "../common/list-spec.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { idOrZero, zeroOrOne } from "../common/validation.js";
import { deleteRecordsWhere } from "../common/write-path.js";
import { FORUM_CATEGORIES } from "./records.js";
import { forumCounts, lastVisiblePost } from "./counts.js";
import { FORUM_POSTS_AREA } from "./area.js";

/** A section's or category's alias: unique in its scope. */
export const forumAlias = z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9-]{0,99}$/, "may hold only letters, digits and hyphens (at most 100)");

/** Who writes the forum's structure: administrators and, in a group, its managers (the scope kind's managers). */
export const FORUM_STRUCTURE_WRITERS = "Only a group manager or an administrator manages the forum's sections and categories.";

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

type Category = { id: number };

/** Forum categories (src/common/area.ts): a section's, in its scope; they hold threads. */
export const FORUM_CATEGORIES_AREA = defineArea({
  area: "forumCategories",
  model: "ForumCategory",
  plural: "forumCategories",
  label: "Forum category",
  description: "A forum category: it holds threads. Its counts are what the caller may see.",
  policy: FORUM_CATEGORIES,
  // Its scope is its section's; it moves between its scope's sections only (its posts keep their scope).
  within: { field: "sectionId", model: "ForumSection", label: "Section" },
  fields: {
    sectionId: { type: "Int", rule: z.number().int().min(1), required: "create", rest: false },
    alias: { type: "String", rule: forumAlias, required: "create", rest: false },
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", rest: false },
    description: { type: "String", rule: z.string().max(10_000), default: "", rest: false },
    closed: { type: "Int", rule: zeroOrOne("must be 0 or 1 (1 closed to new posts)"), default: 0, rest: false },
    isDefault: { type: "Int", rule: zeroOrOne("must be 0 or 1 (1 the scope's default category)"), default: 0, rest: false },
    ordering: { type: "Int", rule: z.number().int(), default: 0, rest: false },
  },
  shown: {
    id: true,
    sectionId: true,
    alias: true,
    title: true,
    description: true,
    scope: true,
    scopeId: true,
    closed: "1 closed to new posts, 0 open.",
    isDefault: "1: category_id 0 posts here in this scope.",
    ordering: { rest: false },
    created: true,
    modified: true,
    threadCount: { type: "Int", rest: "threads", description: "Threads the caller may see.", resolve: async (category: Category, _args: never, ctx) => (await forumCounts(ctx, category.id)).threads },
    postCount: { type: "Int", rest: "posts", description: "Posts the caller may see.", resolve: async (category: Category, _args: never, ctx) => (await forumCounts(ctx, category.id)).posts },
    lastPostId: { type: "Int", nullable: true, description: "The last post the caller may see.", resolve: (category: Category, _args: never, ctx) => lastVisiblePost(ctx, "category", category.id) },
  },
  hidden: ["published"],
  list: {
    description: "Forum categories of a scope, like GET /api/forum/categories.",
    sortColumns: { id: "id", title: "title", ordering: "ordering" },
    defaults: { sort: "id", sortDir: "asc", limit: 25 },
    search: { in: "title", fields: ["title"] },
    filters: {
      section: {
        type: "Int",
        rule: idOrZero,
        description: "Section ID (0: every section of the scope).",
        default: 0,
        all: 0,
        required: true,
        column: "sectionId",
        names: () => FORUM_SECTIONS_AREA,
      },
      closed: { type: "Int", rule: zeroOrOne("must be 1 (closed) or 0 (not closed); absent lists all"), description: "1 closed, 0 not closed; absent lists all." },
    },
  },
  read: { description: "One forum category the caller may see." },
  writes: {
    by: "managers",
    forbidden: FORUM_STRUCTURE_WRITERS,
    conflict: { parameter: "alias", message: "This alias is taken in this scope.", column: "alias" },
    names: ["alias", "title", "sectionId"],
    update: "Only the given fields change.",
    remove: "Administrators and the group's managers: deletes the category and its posts.",
    // Its posts, each with its own deleted event (the foreign key's cascade would take them silently).
    removes: (tx, id) => deleteRecordsWhere(tx, FORUM_POSTS_AREA.writesOf, { categoryId: id }, FORUM_POSTS_AREA.eventTypes.deleted),
  },
  events: {
    categoryCreated: "A forum category was created.",
    categoryUpdated: "A forum category's fields changed (closed, title, …); `changed` names them.",
    categoryDeleted: "A forum category was deleted, with its posts.",
  },
  rest: {
    versions: ["1.0"],
    list: {
      path: "/forum/categories",
      documentedIn: "forum-categories",
      task: "list categories for a section",
      key: "categories",
      extra: { success: true },
      // As the API document lists them: its `limitstart`, no sort.
      documented: { limit: true, start: "limitstart", section: true, search: true, scope: true, scope_id: true, closed: true },
    },
  },
});


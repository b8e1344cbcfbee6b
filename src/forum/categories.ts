import { z } from "zod";
import { defineArea } from "../common/area.js";
import { idOrZero, zeroOrOne } from "../common/validation.js";
import { deleteRecordsWhere } from "../common/write-path.js";
import { FORUM_SECTIONS_AREA } from "./sections.js";
import { FORUM_STRUCTURE_WRITERS, forumAlias } from "./structure.js";
import { forumCounts, lastVisiblePost } from "./service.js";
import { FORUM_POSTS_AREA } from "./area.js";

type Category = { id: number };

/** Forum categories (src/common/area.ts): a section's, in its scope; they hold threads. */
export const FORUM_CATEGORIES_AREA = defineArea({
  area: "forumCategories",
  model: "ForumCategory",
  plural: "forumCategories",
  label: "Forum category",
  description: "A forum category: it holds threads. Its counts are what the caller may see.",
  policy: { scoped: true, published: { field: "published", value: 1 } },
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

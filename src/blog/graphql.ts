import { builder } from "../graphql/builder.js";
import "./activity.js";
// What deleting a group does to its entries (src/groups/content.ts).
import "./group-content.js";
import { tableInput } from "../graphql/fields.js";
import { accessEnum } from "../graphql/access.js";
import { PUBLISH_STATE } from "../common/access.js";
import { recordFields } from "../graphql/crud.js";
import { scopedPath } from "../common/scopes.js";
import { BLOG_ACCESS, BLOG_FIELDS, BLOG_LIST, createBlogEntry, deleteBlogEntry, getBlogEntry, listBlogEntries, updateBlogEntry } from "./service.js";

const BlogAccess = accessEnum(BLOG_ACCESS);

export const BlogEntryType = builder.prismaObject("BlogEntry", {
  description: "A blog entry of a scope (the site, a group, a member), shown to readers within its publishing window.",
  fields: (t) => ({
    id: t.exposeID("id"),
    title: t.exposeString("title"),
    alias: t.exposeString("alias", { description: "Unique within the entry's scope." }),
    content: t.exposeString("content"),
    scope: t.exposeString("scope"),
    scopeId: t.exposeInt("scopeId"),
    state: t.exposeInt("state", { description: PUBLISH_STATE.description }),
    access: t.field({ type: BlogAccess, description: BLOG_ACCESS.description, resolve: (entry) => entry.access }),
    allowComments: t.exposeInt("allowComments", { description: "1 comments allowed, 0 not." }),
    publishUp: t.expose("publishUp", { type: "DateTime", description: "Start of the publishing window." }),
    publishDown: t.expose("publishDown", { type: "DateTime", nullable: true, description: "End of the publishing window; null: open-ended." }),
    hits: t.exposeInt("hits"),
    tags: t.exposeStringList("tags"),
    tagsText: t.string({
      description: "The tags as one comma-separated string: the REST encoding, so clients get back what they sent.",
      resolve: (entry) => entry.tags.join(", "),
    }),
    url: t.string({
      resolve: (entry) => scopedPath(entry, "blog", entry.alias),
    }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.exposeInt("createdById"),
    createdBy: t.relation("createdBy"),
  }),
});

recordFields("BlogEntry", {
  type: BlogEntryType,
  plural: "blogEntries",
  read: { description: "One blog entry the caller may see.", resolve: getBlogEntry },
  list: {
    description: "Blog entries of one scope the caller may see, searched, sorted and paged like GET /api/blog/list.",
    spec: BLOG_LIST,
    resolve: listBlogEntries,
  },
  create: { scope: "user", input: tableInput("CreateBlogEntryInput", BLOG_FIELDS, "create"), resolve: createBlogEntry },
  update: { scope: "user", input: tableInput("UpdateBlogEntryInput", BLOG_FIELDS, "update", "Only the given fields change."), resolve: updateBlogEntry },
  remove: { scope: "user", description: "Deletes the entry; returns its id.", resolve: deleteBlogEntry },
});

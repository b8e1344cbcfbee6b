import { BlogEntryType } from "../../blog/graphql.js";
import { BLOG_FIELDS, BLOG_LIST, createBlogEntry, deleteBlogEntry, getBlogEntry, listBlogEntries, updateBlogEntry } from "../../blog/service.js";
import { defineGroupPlugin } from "../plugins.js";

/** The group's blog: /groups/{group}/blog, answering as /blog does. */
defineGroupPlugin({
  name: "blog",
  area: "blog",
  model: "BlogEntry",
  plural: "BlogEntries",
  type: BlogEntryType,
  noun: "blog entry",
  fields: BLOG_FIELDS,
  service: {
    list: { spec: BLOG_LIST, resolve: listBlogEntries },
    read: getBlogEntry,
    create: createBlogEntry,
    update: updateBlogEntry,
    remove: deleteBlogEntry,
  },
  rest: { selection: "...BlogEntryRest", documents: "blog", list: { key: "posts", extra: { success: true } } },
});

import { BLOG } from "../../blog/area.js";
import { areaType } from "../../graphql/area.js";
import { restFragmentText } from "../../../rest-facade/area-rows.js";
import { defineGroupPlugin } from "../plugins.js";

/** The group's blog: /groups/{group}/blog, answering as /blog does. */
defineGroupPlugin({
  name: "blog",
  area: "blog",
  model: "BlogEntry",
  plural: "BlogEntries",
  type: areaType(BLOG),
  noun: "blog entry",
  fields: BLOG.table,
  service: {
    list: { spec: BLOG.listSpec, resolve: BLOG.listRecords },
    read: BLOG.readRecord,
    create: BLOG.createRecord,
    update: BLOG.updateRecord,
    remove: BLOG.removeRecord,
  },
  rest: { selection: "...BlogEntryRest", documents: { fragments: restFragmentText(BLOG) }, list: { key: "posts", extra: { success: true } } },
});

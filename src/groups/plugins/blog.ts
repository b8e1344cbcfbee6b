import { BLOG } from "../../blog/area.js";
import { declaredAreaPlugin, defineGroupPlugin } from "../plugins.js";

/** The group's blog: /groups/{group}/blog, answering as /blog does. */
defineGroupPlugin(
  declaredAreaPlugin(BLOG, {
    name: "blog",
    plural: "BlogEntries",
    noun: "blog entry",
    rest: { selection: "...BlogEntryRest", list: { key: "posts", extra: { success: true } } },
  }),
);

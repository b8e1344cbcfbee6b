import { registerGroupContent } from "../groups/content.js";
import { deleteScopeRecords } from "../common/write-path.js";
import { BLOG_EVENTS, BLOG_WRITES } from "./service.js";

/** A deleted group's blog entries go with it, each with its own entryDeleted event. */
export const BLOG_GROUP_CONTENT = registerGroupContent({
  area: "blog",
  models: ["BlogEntry"],
  remove: (tx, groupId) => deleteScopeRecords(tx, BLOG_WRITES, { scope: "group", scopeId: groupId }, BLOG_EVENTS.entryDeleted),
});

import { registerGroupContent } from "../groups/content.js";
import { deleteScopeRecords } from "../common/write-path.js";
import { FORUM_EVENTS, FORUM_WRITES } from "./service.js";

/**
 * A deleted group's forum posts go with it, each with its own deleted event; its categories and sections are
 * declared areas (src/forum/categories.ts, sections.ts), removed after the posts (src/groups/content.ts orders
 * removals by the models' foreign keys).
 */
export const FORUM_GROUP_CONTENT = registerGroupContent({
  area: "forum",
  models: ["ForumPost"],
  remove: (tx, groupId) => deleteScopeRecords(tx, FORUM_WRITES, { scope: "group", scopeId: groupId }, FORUM_EVENTS.postDeleted),
});

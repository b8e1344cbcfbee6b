import { registerGroupContent } from "../groups/content.js";
import { deleteScopeRecords } from "../common/write-path.js";
import { FORUM_CATEGORY_EVENTS, FORUM_CATEGORY_WRITES, FORUM_EVENTS, FORUM_SECTION_EVENTS, FORUM_SECTION_WRITES, FORUM_WRITES } from "./service.js";

/** A deleted group's forum goes with it: its posts (each with its own deleted event), then its categories and sections. */
export const FORUM_GROUP_CONTENT = registerGroupContent({
  area: "forum",
  models: ["ForumPost", "ForumCategory", "ForumSection"],
  async remove(tx, groupId) {
    const scope = { scope: "group", scopeId: groupId };
    const posts = await deleteScopeRecords(tx, FORUM_WRITES, scope, FORUM_EVENTS.postDeleted);
    const categories = await deleteScopeRecords(tx, FORUM_CATEGORY_WRITES, scope, FORUM_CATEGORY_EVENTS.categoryDeleted);
    const sections = await deleteScopeRecords(tx, FORUM_SECTION_WRITES, scope, FORUM_SECTION_EVENTS.sectionDeleted);
    return posts + categories + sections;
  },
});

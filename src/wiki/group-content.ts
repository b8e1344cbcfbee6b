import { registerGroupContent } from "../groups/content.js";
import { deleteScopeRecords } from "../common/write-path.js";
import { WIKI_EVENTS, WIKI_WRITES } from "./service.js";

/** A deleted group's pages go with it, each with its own pageDeleted event (revisions by cascade). */
export const WIKI_GROUP_CONTENT = registerGroupContent({
  area: "wiki",
  models: ["WikiPage"],
  remove: (tx, groupId) => deleteScopeRecords(tx, WIKI_WRITES, { scope: "group", scopeId: groupId }, WIKI_EVENTS.pageDeleted),
});

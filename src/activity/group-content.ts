import { registerGroupContent } from "../groups/content.js";
import { deleteScopeRecords } from "../common/write-path.js";
import { ACTIVITY_EVENTS, ACTIVITY_WRITES } from "./service.js";

/** A deleted group's ActivityEntries go with it, each with its own deleted event. */
export const ACTIVITY_GROUP_CONTENT = registerGroupContent({
  area: "activity",
  models: ["ActivityEntry"],
  remove: (tx, groupId) => deleteScopeRecords(tx, ACTIVITY_WRITES, { scope: "group", scopeId: groupId }, ACTIVITY_EVENTS.activityEntryDeleted),
});

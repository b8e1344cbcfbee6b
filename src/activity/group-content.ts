import { Prisma } from "../generated/prisma/client.js";
import { sqlOf } from "../common/context.js";
import { registerGroupContent } from "../groups/content.js";
import { deleteScopeRecords } from "../common/write-path.js";
import { ACTIVITY_EVENTS, ACTIVITY_WRITES } from "./service.js";

/**
 * A deleted group's activity entries go with it, each with its own deleted event; entries of other scopes
 * sent to the group lose that recipient (their other recipients keep them).
 */
export const ACTIVITY_GROUP_CONTENT = registerGroupContent({
  area: "activity",
  models: ["ActivityEntry", "ActivityRecipient"],
  async remove(tx, groupId) {
    const removed = await deleteScopeRecords(tx, ACTIVITY_WRITES, { scope: "group", scopeId: groupId }, ACTIVITY_EVENTS.activityEntryDeleted);
    await sqlOf(tx).query(Prisma.sql`DELETE FROM activity_recipients WHERE scope = 'group' AND scope_id = ${groupId}`);
    return removed;
  },
});

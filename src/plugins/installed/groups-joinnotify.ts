import { Prisma } from "../../generated/prisma/client.js";
import { GROUP_EVENTS } from "../../groups/service.js";
import { definePlugin } from "../registry.js";
import { usersInRelationSql } from "../../common/scope-kinds.js";

/**
 * groups/joinnotify: when someone asks to join a restricted group (`groups.joinRequested`), each of the
 * group's managers (its scope kind's `managers`) gets a notification (`notifications`, read through GraphQL). One statement; the
 * notification is unique on (event, recipient), so a redelivered event adds nothing.
 */
export default definePlugin({
  folder: "groups",
  element: "joinnotify",
  name: "Group join request notifications",
  listeners: {
    [GROUP_EVENTS.joinRequested]: async (event, { sql }) => {
      const payload = { groupId: event.recordId, applicantId: event.subjectId ?? null, ...event.payload };
      await sql.query(Prisma.sql`
        INSERT INTO notifications (user_id, event_id, type, plugin, payload)
        SELECT managers.id, ${event.id}::bigint, ${event.type}, 'groups.joinnotify', ${JSON.stringify(payload)}::jsonb
          FROM (${usersInRelationSql(event.scope, event.scopeId, "managers") ?? Prisma.sql`SELECT NULL::int WHERE FALSE`}) AS managers (id)
        ON CONFLICT (event_id, user_id) DO NOTHING`);
    },
  },
});

import { Prisma } from "../generated/prisma/client.js";
import type { AreaTesting } from "../../test/areas.js";
import { PUBLISHING_WINDOW_STATES, pick } from "../../test/area-kit.js";
import { createPluginRecord, fixtureGroup } from "../groups/plugins.testing.js";
import { groupPluginScope } from "../groups/testing.js";
import { ANNOUNCEMENTS, ANNOUNCEMENTS_ACCESS } from "./area.js";

/**
 * Announcements have no rows of their own (their rows are the group plugin's, documented in
 * src/groups/plugins.testing.ts) and no site scope: their list is `/groups/{group}/announcements/list`,
 * so the shared suites take the scope from the path (`scopeFromPath`: a fresh group per scope, made by
 * its manager) and write as the group's managers (`writers: "managers"`).
 */
export const testing: AreaTesting = {
  area: "announcements",
  documented: {},
  /** In the group `values.group` names (gidNumber or cn), else the fixture group; the other values are the create row's. */
  async create(server, token, values = {}) {
    const { group, ...rest } = values;
    return createPluginRecord(server, token, group === undefined ? await fixtureGroup(server) : String(group), "announcements", rest);
  },
  contract: {
    table: "announcements",
    list: {
      path: "/groups/{group}/announcements/list",
      key: "announcements",
      graphql: "groupAnnouncements",
      scopeFromPath: groupPluginScope("announcements"),
      // The default order's stored column (src/announcements/area.ts, rankOf).
      sortValues: { rank: (item) => Number(item.sticky) * 100_000 + Number(item.priority) },
    },
    spec: ANNOUNCEMENTS.listSpec,
    searchField: "title",
    read: { path: "/groups/{group}/announcements/{record_id}" },
    update: {
      method: "PUT",
      path: "/groups/{group}/announcements/{record_id}",
      body: (record) => pick(record, ["title", "content", "priority", "sticky", "publish_up", "publish_down", "state", "access"]),
    },
    remove: { path: "/groups/{group}/announcements/{record_id}" },
    access: ANNOUNCEMENTS_ACCESS,
    states: PUBLISHING_WINDOW_STATES,
    writers: "managers",
    skips: {
      "contract partial update":
        "its checks make records as a plain user (alice, the creator who may change them) in the state PUT does not default to; announcements are written by managers only and default to published (state 1): their updates by every caller are the authorization matrix's, PATCH keeping the rest src/groups/plugins.test.ts's and announcements.test.ts's",
      "contract access levels":
        "its checks seed records as plain users and group members in a scope of their own and the cast's group; announcements are written by the group's managers only: every caller (invitees and applicants too) x access level x publishing state is the authorization matrix's",
    },
    notFound: (id) => `Announcement ${id} not found.`,
    plan: {
      // Announcements are in groups only: a tenth in the plan's group, the rest spread over 50 others; as the
      // generic seed otherwise (mostly published and public, some drafts, private and registered ones, a
      // few windows ahead or closed, texts of a few hundred characters).
      seed: (rows, { authors, groupId }) =>
        Prisma.sql`INSERT INTO announcements (title, content, priority, sticky, rank, scope, scope_id, state, access, created_by, publish_up, publish_down, created, modified)
          SELECT repeat(md5(g::text || 'title'), 2), repeat(md5(g::text || 'content'), 8), p, s, s * 100000 + p, 'group',
                 CASE WHEN g % 10 = 0 THEN ${Prisma.raw(String(groupId))} ELSE 1000000 + g % 50 END,
                 CASE WHEN g % 10 < 9 THEN 1 ELSE 0 END,
                 CASE WHEN g % 25 < 20 THEN 0 WHEN g % 25 < 23 THEN 1 ELSE 2 END,
                 (${Prisma.raw(`ARRAY[${authors.join(",")}]`)})[1 + g % ${Prisma.raw(String(authors.length))}],
                 (now() AT TIME ZONE 'UTC') + CASE WHEN g % 50 = 0 THEN (1 + g / 50) * interval '1 day' ELSE -g * interval '1 hour' END,
                 CASE WHEN g % 30 = 0 THEN (now() AT TIME ZONE 'UTC') + (CASE WHEN g % 60 = 0 THEN 1 ELSE -1 END) * (1 + g / 60 % 90) * interval '1 day' END,
                 (now() AT TIME ZONE 'UTC') - g * interval '7 minutes', now() AT TIME ZONE 'UTC'
          FROM generate_series(1, ${Prisma.raw(String(rows))}) g, LATERAL (SELECT (g * 7919) % 100 - 50 AS p, CASE WHEN g % 20 = 0 THEN 1 ELSE 0 END AS s) v`,
    },
  },
};

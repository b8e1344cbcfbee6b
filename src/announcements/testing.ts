import { Prisma } from "../generated/prisma/client.js";
import type { AreaTesting } from "../../test/areas.js";
import { createPluginRecord, fixtureGroup } from "../groups/plugins.testing.js";
import { ANNOUNCEMENTS_LIST } from "./service.js";

/**
 * Announcements have no rows of their own (their rows are the group plugin's, documented in
 * src/groups/plugins.testing.ts) and no site scope, so no `contract`: the contract, matrix, totals and
 * hot-path suites need both. The plan test covers their list in group scopes (`plans`).
 */
export const testing: AreaTesting = {
  area: "announcements",
  documented: {},
  async create(server, token, values = {}) {
    return createPluginRecord(server, token, await fixtureGroup(server), "announcements", values);
  },
  plans: {
    spec: ANNOUNCEMENTS_LIST,
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

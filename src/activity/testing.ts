import { Prisma } from "../generated/prisma/client.js";
import type { AreaTesting, Documented } from "../../test/areas.js";
import { contractOf, pick } from "../../test/area-kit.js";
import { ACTIVITY_AREA } from "./area.js";
import { ACTIVITY_FIELDS } from "./records.js";

/** Transcribed by hand from shared/spec/community-platform-api.md ("### Activity"). */
const write: Documented = {
  alias: ["string", false],
  created: ["string", false, "now"],
  crated_by: ["integer", false, 0],
  anonymous: ["integer", false, 0],
  parent: ["integer", false, 0],
};
const list10: Documented = {
  scope: ["string", false, "site"],
  scope_id: ["integer", false, 0],
  limit: ["integer", false, 25],
  start: ["integer", false, 0],
  search: ["string", false],
  sort: ["string", false, "created"],
  sort_Dir: ["string", false, "desc"],
};
const list11: Documented = { ...list10, start_date: ["string", false], end_date: ["string", false], recipients: ["string", false] };
const create: Documented = {
  scope: ["string", true],
  scope_id: ["integer", true],
  action: ["string", true],
  description: ["string", true],
  ...write,
  recipients: ["string", false, "1"],
};
const update: Documented = {
  id: ["integer", true],
  scope: ["string", false],
  scope_id: ["integer", false],
  action: ["string", false],
  description: ["string", false],
  ...write,
  recipients: ["integer", false],
};
const id: Documented = { id: ["integer", true] };

let serial = 0;

export const testing: AreaTesting = {
  area: "activity",
  fields: ACTIVITY_FIELDS,
  documented: {
    "POST /activity 1.0": create,
    "POST /activity 1.1": create,
    "GET /activity/list 1.0": list10,
    "GET /activity/list 1.1": list11,
    "GET /activity/{id} 1.0": id,
    "GET /activity/{id} 1.1": id,
    "PUT /activity/{id} 1.0": update,
    "PUT /activity/{id} 1.1": update,
    "DELETE /activity/{id} 1.0": id,
    "DELETE /activity/{id} 1.1": id,
  },
  async create(server, token, values = {}) {
    serial += 1;
    const response = await server.rest("POST", "/activity", {
      token,
      body: { scope: "site", scope_id: 0, action: "test.entry", description: `Activity entry ${serial}`, recipients: "site:0", ...values },
    });
    if (response.status !== 201) throw new Error(`creating an activity entry failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.id;
  },
  // The rest (rows, list) is the declaration's (contractOf). A PUT sends back the record's fields
  // but its recipients (PUT's `recipients` is a channel, 1 or 0, not the pairs a read answers) and its creator.
  contract: contractOf(ACTIVITY_AREA, {
    table: "activity",
    writers: "users",
    notFound: (id) => `Activity entry ${id} not found.`,
    searchField: "description",
    update: { method: "PUT", path: "/activity/{id}", body: (record) => pick(record, ["scope", "scope_id", "action", "alias", "description", "anonymous", "parent"]) },
    // "Published" is heard by everyone (sent to the site); "unpublished" by nobody but its author (recipients 0).
    states: [
      { name: "public", published: true, values: { recipients: "site:0" } },
      { name: "to nobody", published: false, values: { recipients: "0" } },
    ],
    plan: {
      // Entries with their recipients (the generic seed fills no activity_recipients): 9 in 10 in the site,
      // the rest in the group or 50 others; 6 in 10 public (sent to the site), the others to their group or
      // to a member (the member, authors[2], one in 7).
      seed: (rows, { authors, groupId }) => Prisma.sql`WITH numbered AS (
          SELECT nextval('activity_id_seq')::int AS id, g FROM generate_series(1, ${rows}) g),
        shaped AS (
          SELECT id, g, CASE WHEN g % 10 = 0 THEN 'group' ELSE 'site' END AS scope,
                 CASE WHEN g % 10 <> 0 THEN 0 WHEN g % 20 = 0 THEN ${groupId} ELSE 1000000 + g % 50 END AS scope_id,
                 (now() AT TIME ZONE 'UTC') - g * interval '1 minute' AS created
            FROM numbered),
        addressed AS (
          SELECT shaped.*, CASE WHEN id % 10 < 6 THEN 'site' WHEN scope = 'group' THEN 'group' ELSE 'member' END AS to_scope,
                 CASE WHEN id % 10 < 6 THEN 0 WHEN scope = 'group' THEN scope_id WHEN id % 7 = 0 THEN ${authors[2]!} ELSE 2000000 + id % 500 END AS to_id
            FROM shaped),
        made AS (
          INSERT INTO activity (id, scope, scope_id, action, alias, description, anonymous, parent, recipients, created, created_by, modified)
          SELECT id, scope, scope_id, 'plan.' || (g % 13), '', repeat(md5(g::text), 3), CASE WHEN g % 17 = 0 THEN 1 ELSE 0 END, 0, to_scope || ':' || to_id,
                 created, (ARRAY[${Prisma.join(authors)}]::int[])[1 + g % ${authors.length}], now() AT TIME ZONE 'UTC'
            FROM addressed
          RETURNING id)
        INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
        SELECT a.id, a.to_scope, a.to_id, a.created FROM addressed a JOIN made USING (id)`,
    },
    skips: {
      "authorization matrix": "entries are shown to their recipients, not by scope and level: src/activity/activity.test.ts crosses callers with recipients over REST and GraphQL",
      "contract records": "its record rules make drafts with state 0 and expect created_by by that name; entries have no state (recipients 0 is the draft) and the document spells crated_by: src/activity/activity.test.ts covers author, manager and administrator writes",
      "contract partial update": "the document requires nothing on PUT and entries have no state or access to reset: src/activity/activity.test.ts checks that PUT keeps anonymous and recipients",
      "hot paths": "its search check plants the text in `title` and expects the search total cached across requests; a searched activity list counts its rows per request (recipients are per reader). Its one-statement read and list checks passed before this skip (docs/decisions.md, \"Activity\")",
      totals:
        "its writes change `state` and `access`, which entries do not have (recipients decide who reads): its count triggers are checked with every declared table's (test/count-triggers.test.ts, npm run db:check), and src/activity/activity.test.ts checks the totals per caller after creates, re-addressing and deletes (the matrix, and the counters' test)",
    },
  }),
};

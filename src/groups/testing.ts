import { Prisma } from "../generated/prisma/client.js";
import type { AreaTesting, Documented, PathScope } from "../../test/areas.js";
import { GROUP_AREA } from "./area.js";
import { contractOf } from "../../test/area-kit.js";
import { groupPlugins } from "./plugins.js";
import { twinNames } from "./plugin-graphql.js";

/**
 * Transcribed by hand from shared/spec/community-platform-api.md ("Groups": 1.0 and 1.1, identical
 * parameters). One deliberate difference: the document types `{id}` integer, but the original's router and
 * this API take the gidNumber or the cn there, so the parameter is a string (docs/decisions.md, "Groups").
 * `limit` of the members list is the general rule's (the document lists only id, list and start).
 */
const create: Documented = {
  cn: ["string", true],
  title: ["string", true],
  tags: ["string", false],
  public_description: ["string", false],
  private_description: ["string", false],
  join_policy: ["string", true, "open"],
  discoverability: ["string", true, "visible"],
};
const { cn: _cn, ...replace } = create;
const fields: Documented = { fields: ["string", false, "gidNumber,cn,description,created,created_by"] };
const id: Documented = { id: ["string", true] };

const documented: Record<string, Documented> = {};
for (const version of ["1.0", "1.1"]) {
  documented[`POST /groups ${version}`] = create;
  documented[`GET /groups/list ${version}`] = {
    limit: ["integer", false, 25],
    start: ["integer", false, 0],
    search: ["string", false],
    sort: ["string", false, "created"],
    sort_Dir: ["string", false, "desc"],
    ...fields,
  };
  documented[`DELETE /groups/{id} ${version}`] = id;
  documented[`GET /groups/{id} ${version}`] = { ...id, ...fields };
  documented[`PUT /groups/{id} ${version}`] = { ...id, ...replace };
}
documented["GET /groups/{id}/members/list 1.0"] = { ...id, list: ["string", false], limit: ["integer", false, 25], start: ["integer", false, 0] };

let serial = 0;

export const testing: AreaTesting = {
  area: "groups",
  fields: GROUP_AREA.table,
  documented,
  async create(server, token, values = {}) {
    serial += 1;
    const body = { cn: `g${serial}t${Date.now().toString(36)}`, title: `Group ${serial}`, join_policy: "open", discoverability: "visible", ...values };
    const response = await server.rest("POST", "/groups", { token, body });
    if (response.status !== 201) throw new Error(`creating a group failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.gidNumber;
  },
  /**
   * Groups are listed, counted and planned like any records (test/plans.test.ts, test/totals.test.ts,
   * test/hot-paths.test.ts, the contract suite's list rules), but they are not the contract's records: no
   * publishing state, no creator rule (a creator who leaves a hidden group no longer sees it), `{id}` also a
   * cn, REST records keyed by gidNumber and projected by `fields`, a bare array for the list. The contract
   * suite's record rules are skipped with the reason; the groups' own rules are groups.test.ts,
   * membership.test.ts, test/group-deletion.test.ts and the authorization matrix, which seeds a visible and a
   * hidden group (`access`: the discoverability levels) and makes its callers their members, managers,
   * invitees and applicants (the records' `isScope`: each group is a scope of its own).
   */
  // The rest (rows, list, discoverability as the access levels) is the declaration's (contractOf).
  contract: contractOf(GROUP_AREA, {
    table: "groups",
    writers: "users",
    notFound: (id) => `Group ${id} not found.`,
    list: { query: { fields: "gidNumber,cn,title,description,created,created_by" }, idKey: "gidNumber", sortKeys: { id: "gidNumber" } },
    // PUT sends back the title (REST `description` is the title, docs/decisions.md, "Groups"); what it leaves
    // out keeps its stored value: join_policy and discoverability are privacy parameters, the texts and tags
    // have no documented default.
    update: { method: "PUT", path: "/groups/{id}", body: (record) => ({ title: record.description }) },
    searchField: "title",
    states: [{ name: "published", published: true, values: {} }],
    skips: {
      // The list rules (paging, bounds, sort, literal search, statement counts) apply and run.
      "contract records": "its record rules are the scoped records' (numeric ids only, state, creator rights, REST `access`); a group's {id} is also its cn, and its rules are src/groups/groups.test.ts and membership.test.ts",
    },
    privateTo: {
      async grant(server, id, userId) {
        await server.app.db.prisma.groupMember.create({ data: { groupId: id, userId, status: "member" } });
      },
      async revoke(server, id, userId) {
        await server.app.db.prisma.groupMember.delete({ where: { groupId_userId: { groupId: id, userId } } });
      },
    },
    plan: {
      // Unique cns; 8 % hidden; the member (authors[2]) belongs to every 7th group.
      seed: (rows, { authors }) => Prisma.sql`WITH made AS (
          INSERT INTO groups (cn, title, discoverability, join_policy, published, created, created_by, modified)
          SELECT 'plan' || g, CASE WHEN g % 97 = 0 THEN 'Zephyr group ' ELSE 'Group ' END || g, CASE WHEN g % 25 < 23 THEN 0 ELSE 1 END, g % 4, 1,
                 (now() AT TIME ZONE 'UTC') - g * interval '1 minute', (ARRAY[${Prisma.join(authors)}]::int[])[1 + g % ${authors.length}], now() AT TIME ZONE 'UTC'
            FROM generate_series(1, ${rows}) g
          RETURNING id)
        INSERT INTO group_members (group_id, user_id, status, manager) SELECT id, ${authors[2]!}, 'member', FALSE FROM made WHERE id % 7 = 0`,
    },
  }),
};

/**
 * The scope of a group plugin's list (`/groups/{group}/<plugin>/list`, ListContract.list.scopeFromPath):
 * a fresh group made through POST /groups as the writer (its creator, so its manager), named in the paths
 * by its gidNumber; the twins named by the plugin's rule (`groupAnnouncement`, `updateGroupAnnouncement`…).
 * A later group-only area declares `scopeFromPath: groupPluginScope("forum")`.
 */
export function groupPluginScope(pluginName: string): PathScope {
  return {
    placeholder: "group",
    kind: "group",
    async make(server, token) {
      const scopeId = await testing.create(server, token);
      return { value: String(scopeId), scopeId };
    },
    async addMember(server, scopeId, userId, manager = false) {
      await server.app.db.prisma.groupMember.create({ data: { groupId: scopeId, userId, status: "member", manager } });
    },
    // The group's lookup (groupIdFromPath) before the plugin's own statement.
    statements: 1,
    get graphql() {
      const names = twinNames(groupPlugins().find((plugin) => plugin.name === pluginName)!);
      return { read: names.read, update: names.update, remove: names.remove };
    },
  };
}

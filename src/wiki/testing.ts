import type { AreaTesting, Documented } from "../../test/areas.js";
import { contractOf } from "../../test/area-kit.js";
import { WIKI } from "./area.js";

/** Transcribed by hand from shared/spec/community-platform-api.md ("Wiki page" and the wiki operations). */
const optional: Documented = {
  pagename: ["string", false],
  created: ["string", false, "now"],
  created_by: ["integer", false, 0],
  state: ["integer", false, 0],
  access: ["integer", false, 0],
  scope: ["string", false, "site"],
  scope_id: ["integer", false, 0],
  params: ["array", false],
};

let serial = 0;

export const testing: AreaTesting = {
  area: "wiki",
  fields: WIKI.table,
  documented: {
    "POST /wiki 1.0": { title: ["string", true], pagetext: ["string", true], ...optional },
    "GET /wiki/list 1.0": {
      limit: ["integer", false, 25],
      start: ["integer", false, 0],
      search: ["string", false],
      sort: ["string", false, "title"],
      sort_Dir: ["string", false, "asc"],
      scope: ["string", false, "site"],
      scope_id: ["integer", false, 0],
    },
    "DELETE /wiki/{id} 1.0": { id: ["integer", true, 0] },
    "GET /wiki/{id} 1.0": { id: ["integer", true, 0], version_id: ["integer", false, 0] },
    "PUT /wiki/{id} 1.0": { id: ["integer", true], title: ["string", true], pagetext: ["string", true], ...optional, summary: ["string", false] },
  },
  async create(server, token, values = {}) {
    serial += 1;
    const response = await server.rest("POST", "/wiki", { token, body: { title: `Wiki page ${serial}`, pagetext: "Some text.", state: 1, ...values } });
    if (response.status !== 201) throw new Error(`creating a wiki page failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.id;
  },
  // The rest (rows, list, access levels) is the declaration's (contractOf).
  contract: contractOf(WIKI, {
    table: "wiki_pages",
    writers: "users",
    notFound: (id) => `Wiki page ${id} not found.`,
    searchField: "title",
    searchAlso: "pagetext",
    states: [
      { name: "published", published: true, values: { state: 1 } },
      { name: "unpublished", published: false, values: { state: 0 } },
    ],
  }),
};

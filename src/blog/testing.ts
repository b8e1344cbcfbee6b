import type { AreaTesting, Documented } from "../../test/areas.js";
import { PUBLISHING_WINDOW_STATES, contractOf } from "../../test/area-kit.js";
import { BLOG } from "./area.js";

/** Transcribed by hand from shared/spec/community-platform-api.md ("Blog entry" and the blog operations). */
const fields: Documented = {
  alias: ["string", false],
  tags: ["string", false],
  created: ["string", false, "now"],
  created_by: ["integer", false, 0],
  state: ["integer", false, 0],
  access: ["integer", false, 0],
  allow_comments: ["integer", false, 1],
  publish_up: ["string", false, "now"],
  publish_down: ["string", false],
};

let serial = 0;

export const testing: AreaTesting = {
  area: "blog",
  fields: BLOG.table,
  documented: {
    "POST /blog 1.0": { scope: ["string", true], scope_id: ["integer", true], title: ["string", true], content: ["string", true], ...fields },
    "GET /blog/list 1.0": {
      scope: ["string", false, "site"],
      scope_id: ["integer", false, 0],
      limit: ["integer", false, 25],
      start: ["integer", false, 0],
      search: ["string", false],
      sort: ["string", false, "created"],
      sort_Dir: ["string", false, "desc"],
    },
    "DELETE /blog/{id} 1.0": { id: ["integer", true] },
    "GET /blog/{id} 1.0": { id: ["integer", true] },
    "PUT /blog/{id} 1.0": {
      id: ["integer", true],
      title: ["string", true],
      content: ["string", true],
      scope: ["string", false],
      scope_id: ["integer", false],
      ...fields,
      hits: ["integer", false, 0],
    },
  },
  async create(server, token, values = {}) {
    serial += 1;
    const body = { scope: "site", scope_id: 0, title: `Blog entry ${serial}`, content: "Some content.", state: 1, ...values };
    const response = await server.rest("POST", "/blog", { token, body });
    if (response.status !== 201) throw new Error(`creating a blog entry failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.id;
  },
  // The rest (rows, list, access levels) is the declaration's (contractOf).
  contract: contractOf(BLOG, {
    table: "blog_entries",
    writers: "users",
    notFound: (id) => `Blog entry ${id} not found.`,
    searchField: "title",
    searchAlso: "content",
    states: PUBLISHING_WINDOW_STATES,
  }),
};

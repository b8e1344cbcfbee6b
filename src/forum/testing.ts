import { pick, type AreaTesting, type Documented } from "../../test/areas.js";
import { FORUM_ACCESS, FORUM_FIELDS, FORUM_LIST } from "./service.js";

// TODO: transcribe by hand from shared/spec/community-platform-api.md; these lists only match the skeleton.
const optional: Documented = {
  created: ["string", false, "now"],
  created_by: ["integer", false, 0],
  state: ["integer", false, 0],
  access: ["integer", false, 0],
  scope: ["string", false, "site"],
  scope_id: ["integer", false, 0],
};

let serial = 0;

export const testing: AreaTesting = {
  area: "forum",
  fields: FORUM_FIELDS,
  documented: {
    "POST /forum 1.0": { title: ["string", true], ...optional },
    "GET /forum/list 1.0": {
      limit: ["integer", false, 25],
      start: ["integer", false, 0],
      search: ["string", false],
      sort: ["string", false, "created"],
      sort_Dir: ["string", false, "desc"],
      scope: ["string", false, "site"],
      scope_id: ["integer", false, 0],
    },
    "GET /forum/{id} 1.0": { id: ["integer", true] },
    "PUT /forum/{id} 1.0": { id: ["integer", true], title: ["string", true], ...optional },
    "DELETE /forum/{id} 1.0": { id: ["integer", true] },
  },
  async create(server, token, values = {}) {
    serial += 1;
    const response = await server.rest("POST", "/forum", { token, body: { title: `ForumPost ${serial}`, state: 1, ...values } });
    if (response.status !== 201) throw new Error(`creating a forumPost failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.id;
  },
  contract: {
    table: "forum",
    list: { path: "/forum/list", key: "forum", graphql: "forumPosts" },
    spec: FORUM_LIST,
    searchField: "title",
    read: { path: "/forum/{id}" },
    update: { method: "PUT", path: "/forum/{id}", body: (record) => pick(record, ["title", "scope", "scope_id", "state", "access"]) },
    remove: { path: "/forum/{id}" },
    access: FORUM_ACCESS,
    states: [
      { name: "published", published: true, values: { state: 1 } },
      { name: "unpublished", published: false, values: { state: 0 } },
    ],
    writers: "users",
    notFound: (id) => `ForumPost ${id} not found.`,
  },
};

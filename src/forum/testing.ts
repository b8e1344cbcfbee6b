import type { AreaTesting, Documented } from "../../test/areas.js";
import { Prisma } from "../generated/prisma/client.js";
import { FORUM_ACCESS, FORUM_FIELDS, FORUM_LIST } from "./service.js";

/** Transcribed by hand from shared/spec/community-platform-api.md ("Forum"). */
const scope: Documented = { scope: ["string", false, "site"], scope_id: ["integer", false, 0] };
const links: Documented = { category_id: ["integer", true], user_id: ["integer", true] };

let serial = 0;

const testing: AreaTesting = {
  area: "forum",
  fields: FORUM_FIELDS,
  documented: {
    "POST /forum 1.0": {
      category_id: ["integer", true, 0],
      scope: ["string", true, "site"],
      scope_id: ["integer", true, 0],
      comment: ["string", true],
      title: ["string", false],
      created: ["string", false, "now"],
      created_by: ["integer", false, 0],
      state: ["integer", false, 1],
      access: ["integer", false, 1],
      anonymous: ["integer", false, 0],
      parent: ["integer", false, 0],
      thread: ["string", false, "0"],
      sticky: ["integer", false, 0],
      closed: ["integer", false, 0],
      tags: ["string", false],
    },
    "GET /forum/list 1.0": {
      limit: ["integer", false, 25],
      limitstart: ["integer", false, 0],
      search: ["string", false],
      section: ["integer", false, 0],
      category: ["integer", false, 0],
      threads_only: ["boolean", false],
      parent: ["integer", false],
      thread: ["integer", false, 0],
      ...scope,
    },
    "GET /forum/{thread} 1.0": {
      id: ["integer", true, 0],
      limit: ["integer", false, 25],
      limitstart: ["integer", false, 0],
      section: ["string", false],
      category: ["string", false],
      state: ["integer", false, 1],
      ...scope,
      scope_sub_id: ["integer", false, 0],
      object_id: ["integer", false, 0],
      start_id: ["integer", false, 0],
      start_at: ["string", false],
      sort: ["string", false, "newest"],
    },
  },
  /** A thread in the scope's default category (the site's is seeded; a group's is made by its manager first). */
  async create(server, token, values = {}) {
    serial += 1;
    const response = await server.rest("POST", "/forum", {
      token,
      body: { category_id: 0, scope: "site", scope_id: 0, title: `Thread ${serial}`, comment: `Comment ${serial}`, state: 1, ...values },
    });
    if (response.status !== 201) throw new Error(`creating a forum post failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.id;
  },
  /** `GET /forum/{thread}`: a thread made by `create`. */
  async pathFor(server, token, operation) {
    const id = await testing.create(server, token);
    return operation.path.replace("{thread}", String(id)).replace("{id}", String(id));
  },
  contract: {
    table: "forum_posts",
    list: { path: "/forum/list", key: "threads", graphql: "forumPosts" },
    spec: FORUM_LIST,
    searchField: "title",
    access: FORUM_ACCESS,
    states: [
      { name: "published", published: true, values: { state: 1 } },
      { name: "unpublished", published: false, values: { state: 0 } },
    ],
    writers: "users",
    notFound: (id) => `Forum post ${id} not found.`,
    skips: {
      "hot paths":
        "a thread list also answers each thread's post count and last post the caller may see: two more statements per list (forum_counts, and one index probe per thread batched in one statement), the same for 2 threads as for 25 (the contract's statement count, and src/forum/forum.test.ts)",
      "contract access levels":
        "the forum has no REST record read (GET /forum/{thread} answers a thread and its page of replies) and its `state` column is kept by a trigger from own_state; src/forum/forum.test.ts covers access levels, state and the inherited visibility, and the authorization matrix the reads",
      totals:
        "a post takes its scope from its category and never moves scope, while the shared totals test moves records between scopes; the list totals are the kit's (list_counts on `state`, checked by the plan test), and src/forum/forum.test.ts checks the totals and counts after writes",
    },
    plan: {
      filters: [{ categoryId: 1 }, { categoryId: 1, starter: 1 }, { threadId: 1 }, { parentId: 1 }, { sectionId: 1 }, { starter: 1 }],
      seed: (rows, { authors, groupId }) => seedPosts(rows, authors, groupId),
    },
  },
};


/** Posts in the site's default category and a group's, three in four thread starters, for the plan test. */
function seedPosts(rows: number, authors: number[], groupId: number): Prisma.Sql {
  return Prisma.sql`INSERT INTO forum_posts (category_id, section_id, thread_id, starter, parent_id, title, comment, scope, scope_id, own_state, state, access, created_by, created, last_activity)
    SELECT c.id, c.section_id, CASE WHEN n % 4 <> 3 THEN 0 ELSE n - 1 END, (n % 4 <> 3)::int, 0, 'Post ' || n, 'Comment ' || n,
           CASE WHEN n % 2 = 1 THEN 'group' ELSE 'site' END, CASE WHEN n % 2 = 1 THEN ${groupId}::int ELSE 0 END,
           (n % 5 <> 1)::int, 1, (ARRAY[1, 2, 5])[1 + n % 3], (${authors}::int[])[1 + n % ${authors.length}], now() - n * interval '1 minute', now() - n * interval '1 minute'
    FROM generate_series(1, ${rows}) AS n, (SELECT id, section_id FROM forum_categories WHERE is_default = 1 ORDER BY id LIMIT 1) AS c`;
}

/**
 * Sections, categories and the user-category links (2.0), documented apart from the posts (their field
 * table and list contract are the posts'). The links take the API document's
 * `category_id` and `user_id`, and the names the original's own client sends (`userId`, `categoriesIds[]`),
 * which issue 15 asks the rows to accept too.
 */
const linkTesting: AreaTesting = {
  area: "forum-structure",
  documented: {
    "GET /forum/categories 1.0": {
      limit: ["integer", false, 25],
      limitstart: ["integer", false, 0],
      section: ["integer", true, 0],
      search: ["string", false],
      ...scope,
      closed: ["integer", false],
    },
    "GET /forum/sections 1.0": { ...scope },
    "POST /forum/userscategories/create 2.0": { ...links, userId: ["integer", false], categoriesIds: ["array", false] },
    "DELETE /forum/userscategories/destroy 2.0": { ...links, userId: ["integer", false], categoriesIds: ["array", false] },
  },
  create: (server, token, values) => testing.create(server, token, values),
};

export const testings: AreaTesting[] = [testing, linkTesting];

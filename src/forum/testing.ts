import type { AreaTesting, Documented } from "../../test/areas.js";
import { contractOf, createThroughGraphql } from "../../test/area-kit.js";
import type { TestServer } from "../../test/server.js";
import { Prisma } from "../generated/prisma/client.js";
import { FORUM_POSTS_AREA } from "./area.js";
import { FORUM_FIELDS } from "./records.js";
import { FORUM_CATEGORIES_AREA, FORUM_SECTIONS_AREA } from "./structure.js";

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
  // The rest (rows, list, access levels) is the declaration's (contractOf).
  contract: contractOf(FORUM_POSTS_AREA, {
    table: "forum_posts",
    writers: "users",
    notFound: (id) => `Forum post ${id} not found.`,
    searchField: "title",
    states: [
      { name: "published", published: true, values: { state: 1 } },
      { name: "unpublished", published: false, values: { state: 0 } },
    ],
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
  }),
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
 * The structure's records are made through GraphQL (sections and categories have no REST writes), by the
 * scope's managers: administrators, and a group's managers in its scope. Each scope's section for new
 * categories is the first one listed to the caller (the site's "general", from the migration), else one made
 * as the caller.
 */
const structureSerial = () => `${(serial += 1)}-${Math.random().toString(36).slice(2, 8)}`;

/** The REST values the shared suites give `create` (scope, scope_id, title), as a section's or category's GraphQL input; a state other than published is refused (neither has an unpublished state to write). */
function structureInput(kind: string, values: Record<string, unknown>) {
  const { scope = "site", scope_id: scopeId = 0, title, state = 1, ...rest } = values;
  if (state !== 1 || Object.keys(rest).length) throw new Error(`a forum ${kind} takes scope, scope_id and title only (asked: ${JSON.stringify(values)})`);
  const alias = `${kind}-${structureSerial()}`;
  return { scope: scope as string, scopeId: scopeId as number, input: { alias, title: (title as string | undefined) ?? `The ${kind} ${alias}` } };
}

async function sectionOf(server: TestServer, token: string, scope: string, scopeId: number): Promise<number> {
  const listed = await server.graphqlText<{ forumSections: { items: { id: string }[] } }>(
    `query($scope: String, $scopeId: Int) { forumSections(scope: $scope, scopeId: $scopeId, sort: "id", limit: 1) { items { id } } }`,
    { scope, scopeId },
    token,
  );
  const first = listed.data?.forumSections.items[0];
  return first ? Number(first.id) : createThroughGraphql(server, token, "createForumSection", "CreateForumSectionInput", { scope, scopeId, alias: `section-${structureSerial()}`, title: "Section" });
}

/** Transcribed by hand (as above): each list is one shared-contract area; the links are the categories'. */
const categoryTesting: AreaTesting = {
  area: "forum-categories",
  documented: {
    "GET /forum/categories 1.0": {
      limit: ["integer", false, 25],
      limitstart: ["integer", false, 0],
      section: ["integer", true, 0],
      search: ["string", false],
      ...scope,
      closed: ["integer", false],
    },
    // The original's own client sends `categoriesIds[]` (a list, a parameter of its own, which may stand in for
    // `category_id`) and `userId` (read as `user_id`, RestParam.alsoNamed): issue 15 asks the rows to accept both.
    "POST /forum/userscategories/create 2.0": { ...links, categoriesIds: ["array", false] },
    "DELETE /forum/userscategories/destroy 2.0": { ...links, categoriesIds: ["array", false] },
  },
  async create(server, token, values = {}) {
    const { scope, scopeId, input } = structureInput("category", values);
    return createThroughGraphql(server, token, "createForumCategory", "CreateForumCategoryInput", { ...input, sectionId: await sectionOf(server, token, scope, scopeId) });
  },
  // The rest (rows, list) is the declaration's (contractOf); every list request names the section (required).
  contract: contractOf(FORUM_CATEGORIES_AREA, {
    table: "forum_categories",
    writers: "managers",
    notFound: (id) => `Forum category ${id} not found.`,
    list: { query: { section: "0" } },
    searchField: "title",
    // Always published: the column is the kit's, no write unpublishes a category (closing one stops new posts only).
    states: [{ name: "published", published: true, values: {} }],
    // Written by administrators, and a group's managers in its scope (the suites' own scopes, `project`, have no managers).
    skips: {
      "hot paths":
        "a category list also answers each category's thread and post counts and its last post the caller may see: two more statements per list (forum_counts, and one index probe per category batched in one statement), the same for 2 categories as for 25 (the contract's statement count)",
      totals:
        "categories never move scope and have no state a write changes, while the shared totals test moves records between scopes and unpublishes them; their list totals are the kit's (list_counts on `published`, checked by the plan test), and src/forum/forum.test.ts checks counts after writes",
    },
    plan: {
      filters: [{ sectionId: 1 }, { closed: 1 }, { sectionId: 1, closed: 0 }],
      seed: (rows, { groupId }) => seedStructure("forum_categories", rows, groupId),
    },
  }),
};

const sectionTesting: AreaTesting = {
  area: "forum-sections",
  documented: { "GET /forum/sections 1.0": { ...scope } },
  async create(server, token, values = {}) {
    const { scope, scopeId, input } = structureInput("section", values);
    return createThroughGraphql(server, token, "createForumSection", "CreateForumSectionInput", { ...input, scope, scopeId });
  },
  // The rest (rows, list) is the declaration's (contractOf).
  contract: contractOf(FORUM_SECTIONS_AREA, {
    table: "forum_sections",
    writers: "managers",
    notFound: (id) => `Forum section ${id} not found.`,
    searchField: "title",
    states: [{ name: "published", published: true, values: {} }],
    skips: {
      totals:
        "sections never move scope and have no state a write changes, while the shared totals test moves records between scopes and unpublishes them; their list totals are the kit's (list_counts on `published`, checked by the plan test)",
    },
    plan: { seed: (rows, { groupId }) => seedStructure("forum_sections", rows, groupId) },
  }),
};

/**
 * Sections or categories for the plan test, mostly the site's, some a group's, every tenth closed: each
 * category in a section of its own scope (the site's first, the group's one made here).
 */
function seedStructure(table: "forum_sections" | "forum_categories", rows: number, groupId: number): Prisma.Sql {
  const scopeOf = Prisma.sql`CASE WHEN n % 10 = 9 THEN 'group' ELSE 'site' END`;
  const scopeIdOf = Prisma.sql`CASE WHEN n % 10 = 9 THEN ${groupId}::int ELSE 0 END`;
  if (table === "forum_sections")
    return Prisma.sql`INSERT INTO forum_sections (alias, title, scope, scope_id, ordering)
      SELECT 'plan-' || n, 'Section ' || md5(n::text), ${scopeOf}, ${scopeIdOf}, n % 7 FROM generate_series(1, ${rows}) AS n`;
  return Prisma.sql`WITH sections AS (
      INSERT INTO forum_sections (alias, title, scope, scope_id) VALUES ('plan-site', 'Plan', 'site', 0), ('plan-group', 'Plan', 'group', ${groupId}::int) RETURNING id, scope)
    INSERT INTO forum_categories (section_id, alias, title, scope, scope_id, closed, ordering)
      SELECT (SELECT id FROM sections WHERE scope = ${scopeOf}), 'plan-' || n, 'Category ' || md5(n::text), ${scopeOf}, ${scopeIdOf}, (n % 10 = 3)::int, n % 7
      FROM generate_series(1, ${rows}) AS n`;
}

export const testings: AreaTesting[] = [testing, categoryTesting, sectionTesting];

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { startServer, type Cast, type TestServer } from "../../test/server.js";

/**
 * Who may moderate what, and what moderation leaves standing (a review's findings): anonymity is the
 * author's, pinning and closing the moderators', a PUT keeps both, a hidden post's thread is not told, a
 * category stays in its scope, and what a deletion takes raises its own events.
 */
let server: TestServer;
let cast: Cast;
const sql = () => sqlClientOf(server.app.db.prisma);

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("Forummods");
});

afterAll(() => server?.close());

const post = (token: string | undefined, body: Record<string, unknown>) =>
  server.rest("POST", "/forum", { token, body: { category_id: 0, scope: "site", scope_id: 0, comment: "Text.", ...body } });
const inGroup = (token: string | undefined, body: Record<string, unknown>) =>
  server.rest("POST", `/groups/${cast.groupId}/forum`, { token, body: { title: "In the group", comment: "Text.", ...body } });
const gql = (query: string, variables: Record<string, unknown>, token?: string) => server.graphqlText(query, variables, token);
const stored = async (id: number) =>
  (await sql().query<{ anonymous: number; sticky: number; closed: number; created_by: number }>(Prisma.sql`SELECT anonymous, sticky, closed, created_by FROM forum_posts WHERE id = ${id}`))[0]!;

describe("anonymity is the author's", () => {
  it("a PUT that leaves anonymous out keeps the post anonymous (the group plugin's PUT)", async () => {
    const made = await inGroup(cast.member.token, { anonymous: 1 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const replaced = await server.rest("PUT", `/groups/${cast.groupId}/forum/${made.body.id}`, { token: cast.member.token, body: { title: "edited", comment: "edited" } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect((await stored(made.body.id)).anonymous).toBe(1);
    const seen = await server.rest("GET", `/groups/${cast.groupId}/forum/${made.body.id}`, { token: cast.manager.token });
    expect(seen.body.created_by).toBeNull();
  });

  it("a group manager cannot unmask an anonymous author; the author and administrators can", async () => {
    const made = await inGroup(cast.member.token, { anonymous: 1 });
    const unmask = `mutation($id: ID!) { updateForumPost(id: $id, input: { anonymous: 0 }) { id createdById } }`;
    const byManager = await gql(unmask, { id: made.body.id }, cast.manager.token);
    expect(byManager.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(byManager.errors?.[0]?.message).toContain("anonymous");
    expect((await stored(made.body.id)).anonymous).toBe(1);
    expect((await gql(unmask, { id: made.body.id }, cast.member.token)).errors).toBeUndefined();
  });
});

describe("pinning and closing are the moderators'", () => {
  it("starting a thread pinned or closed is 403 for others and nothing is stored; moderators may", async () => {
    const before = Number((await sql().query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM forum_posts`))[0]!.n);
    for (const flags of [{ sticky: 1 }, { closed: 1 }]) expect((await post(cast.alice.token, { title: "Pinned by a user", ...flags })).status).toBe(403);
    expect(Number((await sql().query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM forum_posts`))[0]!.n)).toBe(before);
    const pinned = await post(cast.admin.token, { title: "Pinned by an administrator", sticky: 1, closed: 1 });
    expect(pinned.status).toBe(201);
    expect(await stored(pinned.body.id)).toMatchObject({ sticky: 1, closed: 1 });
    expect((await inGroup(cast.manager.token, { sticky: 1 })).status).toBe(201);
  });

  it("a PUT that leaves sticky and closed out keeps them: the author edits a closed thread, a moderator's edit does not reopen it", async () => {
    const made = await inGroup(cast.member.token, {});
    const close = `mutation($id: ID!) { closeForumThread(id: $id, closed: true) { id } pinForumThread(id: $id, sticky: true) { id } }`;
    expect((await gql(close, { id: made.body.id }, cast.manager.token)).errors).toBeUndefined();
    for (const token of [cast.member.token, cast.manager.token]) {
      const replaced = await server.rest("PUT", `/groups/${cast.groupId}/forum/${made.body.id}`, { token, body: { title: "edited", comment: "edited" } });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect(await stored(made.body.id)).toMatchObject({ sticky: 1, closed: 1 });
    }
  });
});

describe("publishing", () => {
  it("an author republishes what they unpublished themselves, never what a moderator took down", async () => {
    const made = await inGroup(cast.member.token, {});
    const publish = (published: boolean, token: string | undefined) =>
      gql(`mutation($id: ID!, $published: Boolean!) { publishForumPost(id: $id, published: $published) { id } }`, { id: made.body.id, published }, token);
    const ownState = async () => (await sql().query<{ own_state: number }>(Prisma.sql`SELECT own_state FROM forum_posts WHERE id = ${made.body.id}`))[0]!.own_state;
    expect((await publish(false, cast.member.token)).errors).toBeUndefined();
    expect((await publish(true, cast.member.token)).errors).toBeUndefined();
    expect(await ownState()).toBe(1);
    expect((await publish(false, cast.manager.token)).errors).toBeUndefined();
    const undone = await publish(true, cast.member.token);
    expect(undone.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(undone.errors?.[0]?.message).toContain("moderator");
    expect(await ownState()).toBe(0);
    expect((await publish(true, cast.manager.token)).errors).toBeUndefined();
    expect(await ownState()).toBe(1);
    expect((await publish(false, cast.member.token)).errors).toBeUndefined();
    expect((await publish(true, cast.member.token)).errors).toBeUndefined();
  });
});

describe("what a reply names", () => {
  it("a parent in a thread the caller may not read is 400 without telling its thread", async () => {
    const hidden = await inGroup(cast.member.token, { access: 5 });
    const reply = await inGroup(cast.member.token, { thread: String(hidden.body.id) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const answered = await post(cast.alice.token, { parent: reply.body.id });
    expect(answered.status).toBe(400);
    expect(answered.body.errors[0].parameter).toBe("parent");
    expect(JSON.stringify(answered.body)).not.toContain(String(hidden.body.id));
  });
});

describe("categories and sections", () => {
  const make = async (token: string, scope: { scope: string; scopeId: number }, alias: string) => {
    const section = await gql(`mutation($input: CreateForumSectionInput!) { createForumSection(input: $input) { id } }`, { input: { ...scope, alias, title: alias } }, token);
    expect(section.errors, JSON.stringify(section.errors)).toBeUndefined();
    const category = await gql(
      `mutation($input: CreateForumCategoryInput!) { createForumCategory(input: $input) { id } }`,
      { input: { sectionId: Number(section.data.createForumSection.id), alias, title: alias } },
      token,
    );
    expect(category.errors, JSON.stringify(category.errors)).toBeUndefined();
    return { section: Number(section.data.createForumSection.id), category: Number(category.data.createForumCategory.id) };
  };
  const move = (token: string, category: number, sectionId: number) =>
    gql(`mutation($id: ID!, $input: UpdateForumCategoryInput!) { updateForumCategory(id: $id, input: $input) { id } }`, { id: category, input: { sectionId } }, token);

  it("a category moves only between its own scope's sections: another scope's, or none, is 400 naming sectionId", async () => {
    const mine = await make(cast.manager.token!, { scope: "group", scopeId: cast.groupId }, "mods-one");
    const other = await make(cast.manager.token!, { scope: "group", scopeId: cast.groupId }, "mods-two");
    const [site] = await sql().query<{ id: number }>(Prisma.sql`SELECT id FROM forum_sections WHERE scope = 'site' AND scope_id = 0 ORDER BY id LIMIT 1`);
    for (const sectionId of [site!.id, 987654]) {
      const moved = await move(cast.manager.token!, mine.category, sectionId);
      expect(moved.errors?.[0]?.extensions?.code, JSON.stringify(moved.errors)).toBe("BAD_REQUEST");
      expect(JSON.stringify(moved.errors)).toContain("sectionId");
    }
    expect((await move(cast.manager.token!, mine.category, other.section)).errors).toBeUndefined();
  });

  it("a section goes only into a scope that exists, for administrators too: a missing group is 400 naming scopeId, nothing stored", async () => {
    const made = await gql(`mutation($input: CreateForumSectionInput!) { createForumSection(input: $input) { id } }`, { input: { scope: "group", scopeId: 987654, alias: "nowhere", title: "Nowhere" } }, cast.admin.token);
    expect(made.errors?.[0]?.extensions?.code, JSON.stringify(made.errors)).toBe("BAD_REQUEST");
    expect(JSON.stringify(made.errors)).toContain("scopeId");
    const [left] = await sql().query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM forum_sections WHERE scope = 'group' AND scope_id = 987654`);
    expect(left!.n).toBe(0);
  });

  it("deleting a category, a section or a thread raises a deleted event for every post it takes", async () => {
    const { section, category } = await make(cast.admin.token!, { scope: "site", scopeId: 0 }, "mods-gone");
    const thread = await post(cast.alice.token, { category_id: category, title: "Goes with its category" });
    const reply = await post(cast.bob.token, { thread: String(thread.body.id) });
    const other = await post(cast.alice.token, { category_id: category, title: "Its own thread goes" });
    const otherReply = await post(cast.bob.token, { thread: String(other.body.id) });
    const deletedEvents = async (ids: number[]) =>
      (await sql().query<{ record_id: number }>(Prisma.sql`SELECT record_id FROM outbox WHERE type = 'forum.postDeleted' AND record_id = ANY(${ids}::int[])`)).map((row) => row.record_id).sort();
    // A thread takes its replies.
    const gone = await gql(`mutation($id: ID!) { deleteForumPost(id: $id) }`, { id: other.body.id }, cast.alice.token);
    expect(gone.errors, JSON.stringify(gone.errors)).toBeUndefined();
    expect(await deletedEvents([other.body.id, otherReply.body.id])).toEqual([other.body.id, otherReply.body.id].sort());
    // A section takes its categories and their posts.
    const removed = await gql(`mutation($id: ID!) { deleteForumSection(id: $id) }`, { id: section }, cast.admin.token);
    expect(removed.errors, JSON.stringify(removed.errors)).toBeUndefined();
    expect(await deletedEvents([thread.body.id, reply.body.id])).toEqual([thread.body.id, reply.body.id].sort());
    const [categoryEvent] = await sql().query(Prisma.sql`SELECT 1 FROM outbox WHERE type = 'forumCategories.categoryDeleted' AND record_id = ${category}`);
    expect(categoryEvent).toBeDefined();
  });

  it("category_id 0 still posts when a scope has no default category but one aliased general (it becomes the default)", async () => {
    await sql().query(Prisma.sql`UPDATE forum_categories SET is_default = 0 WHERE scope = 'site' AND scope_id = 0`);
    try {
      const made = await post(cast.alice.token, { title: "To the default" });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    } finally {
      await sql().query(Prisma.sql`UPDATE forum_categories SET is_default = 1 WHERE scope = 'site' AND scope_id = 0 AND alias = 'general'`);
    }
  });
});

describe("user-category links", () => {
  it("a request naming more categories than a forum could mean is 400 naming categoriesIds, not a 500", async () => {
    const many = Array.from({ length: 70_000 }, (_, index) => index + 1).join(",");
    for (const [method, path] of [["POST", "/v2.0/forum/userscategories/create"], ["DELETE", "/v2.0/forum/userscategories/destroy"]] as const) {
      const answered = await server.rest(method, path, { token: cast.alice.token, body: { user_id: 0, categoriesIds: many } });
      expect(answered.status, JSON.stringify(answered.body).slice(0, 200)).toBe(400);
      expect(answered.body.errors[0].parameter).toBe("categoriesIds");
    }
  });
});

describe("who reads a post", () => {
  const read = async (id: number, token: string | undefined) => (await gql(`query($id: ID!) { forumPost(id: $id) { id } }`, { id }, token)).data?.forumPost?.id ?? null;
  const thread = (id: number, token: string | undefined) => server.rest("GET", `/forum/${id}`, { token, query: { limit: 100 } });

  it("a reply is never readable where its thread is not, not even to its author; the group's managers moderate (they read unpublished posts)", async () => {
    const replier = await server.user();
    await server.app.db.prisma.$executeRaw(Prisma.sql`INSERT INTO group_members (group_id, user_id, status, manager) VALUES (${cast.groupId}, ${replier.id}, 'member', false)`);
    const started = await inGroup(cast.member.token, { title: "Soon unpublished" });
    const reply = await inGroup(replier.token, { thread: String(started.body.id) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const unpublished = await gql(`mutation($id: ID!) { publishForumPost(id: $id, published: false) { id } }`, { id: started.body.id }, cast.manager.token);
    expect(unpublished.errors).toBeUndefined();

    expect(await read(reply.body.id, replier.token)).toBeNull();
    const listed = await server.rest("GET", "/forum/list", { token: replier.token, query: { thread: started.body.id, scope: "group", scope_id: cast.groupId } });
    expect(listed.body.threads.map((post: { id: number }) => post.id)).not.toContain(reply.body.id);
    expect(listed.body.total).toBe(listed.body.threads.length);
    // The plain list of the group (no filter: its total comes from the counters) agrees with its rows too,
    // the reply left out of both (docs/policy-design.md, D1).
    const plain = await server.rest("GET", "/forum/list", { token: replier.token, query: { scope: "group", scope_id: cast.groupId, limit: 100 } });
    expect(plain.body.threads.map((post: { id: number }) => post.id)).not.toContain(reply.body.id);
    expect(plain.body.total).toBeLessThan(100);
    expect(plain.body.total).toBe(plain.body.threads.length);

    // The moderator reads the unpublished thread and its reply; its total counts what they read.
    expect(await read(started.body.id, cast.manager.token)).toBe(String(started.body.id));
    expect(await read(reply.body.id, cast.manager.token)).toBe(String(reply.body.id));
    const moderated = await thread(started.body.id, cast.manager.token);
    expect(moderated.status).toBe(200);
    expect(moderated.body.posts.map((post: { id: number }) => post.id)).toEqual([reply.body.id]);
    expect(moderated.body.total).toBe(1);
    const groupList = await server.rest("GET", "/forum/list", { token: cast.manager.token, query: { scope: "group", scope_id: cast.groupId, limit: 100 } });
    expect(groupList.body.threads.map((post: { id: number }) => post.id)).toContain(started.body.id);
    expect(groupList.body.total).toBe(groupList.body.threads.length);

    // A plain member reads neither; the thread's author reads their thread, not the others' replies in it.
    const other = await server.user();
    await server.app.db.prisma.$executeRaw(Prisma.sql`INSERT INTO group_members (group_id, user_id, status, manager) VALUES (${cast.groupId}, ${other.id}, 'member', false)`);
    expect(await read(started.body.id, other.token)).toBeNull();
    expect(await read(reply.body.id, cast.member.token)).toBeNull();
  });

  it("a thread read's total counts the posts the caller reads: their own private reply, not the administrator's", async () => {
    const started = await post(cast.alice.token, { title: "Private to its author", access: 5 });
    await post(cast.admin.token, { thread: String(started.body.id), comment: "From the administrator" });
    const own = await post(cast.alice.token, { thread: String(started.body.id), comment: "From the author" });
    const answered = await thread(started.body.id, cast.alice.token);
    expect(answered.status).toBe(200);
    expect(answered.body.posts.map((reply: { id: number }) => reply.id)).toEqual([own.body.id]);
    expect(answered.body.total).toBe(1);
    const byAdmin = await thread(started.body.id, cast.admin.token);
    expect(byAdmin.body.total).toBe(2);
    expect(byAdmin.body.posts).toHaveLength(2);
  });
});

describe("a thread read's total is what the caller reads", () => {
  const read = (id: number, token: string | undefined) => server.rest("GET", `/forum/${id}`, { token, query: { limit: 100 } });

  it("for every kind of caller: anonymous, a stranger, authors of uncounted replies, members, a moderator, an administrator, an author outside a hidden group", async () => {
    const stranger = await server.user();
    const site = (await post(cast.alice.token, { title: "Totals by caller" })).body.id;
    await post(cast.bob.token, { thread: String(site), comment: "Public" });
    await post(cast.bob.token, { thread: String(site), comment: "Registered", access: 2 });
    await post(cast.alice.token, { thread: String(site), comment: "Alice's private", access: 5 });
    await post(cast.bob.token, { thread: String(site), comment: "Bob's private", access: 5 });
    await post(cast.bob.token, { thread: String(site), comment: "Bob's draft", state: 0 });
    const group = (await inGroup(cast.member.token, { title: "Group totals" })).body.id;
    await inGroup(cast.manager.token, { thread: String(group), comment: "Members only", access: 5 });
    await inGroup(cast.member.token, { thread: String(group), comment: "Public" });
    // A hidden group its thread's author has left: they still read their thread, none of its replies.
    const hidden = await server.app.db.prisma.group.create({ data: { cn: "forumtotalshidden", title: "Hidden totals", discoverability: 1 } });
    const leaver = await server.user();
    await server.app.db.prisma.groupMember.createMany({ data: [leaver, cast.member].map((user) => ({ groupId: hidden.id, userId: user.id, status: "member" })) });
    const secluded = (await server.rest("POST", `/groups/${hidden.id}/forum`, { token: leaver.token, body: { title: "Left behind", comment: "Text." } })).body.id;
    await server.rest("POST", `/groups/${hidden.id}/forum`, { token: cast.member.token, body: { thread: String(secluded), comment: "Public, hidden" } });
    await server.rest("POST", `/groups/${hidden.id}/forum`, { token: leaver.token, body: { thread: String(secluded), comment: "Own, hidden" } });
    await server.rest("POST", `/groups/${hidden.id}/forum`, { token: leaver.token, body: { thread: String(secluded), comment: "Own draft, hidden", state: 0 } });
    await server.app.db.prisma.groupMember.deleteMany({ where: { groupId: hidden.id, userId: leaver.id } });

    const callers = { anonymous: undefined, stranger: stranger.token, alice: cast.alice.token, bob: cast.bob.token, member: cast.member.token, manager: cast.manager.token, admin: cast.admin.token, leaver: leaver.token };
    const totals: Record<string, (number | null)[]> = {};
    for (const [name, token] of Object.entries(callers)) {
      totals[name] = [];
      for (const id of [site, group, secluded]) {
        const answered = await read(id, token);
        if (answered.status === 404) {
          totals[name]!.push(null);
          continue;
        }
        expect(answered.body.total, `${name} reading ${id}`).toBe(answered.body.posts.length);
        totals[name]!.push(answered.body.total);
      }
    }
    expect(totals).toEqual({
      anonymous: [1, 1, null],
      stranger: [2, 1, null],
      alice: [3, 1, null],
      bob: [3, 1, null],
      member: [2, 2, 2],
      manager: [2, 2, null],
      admin: [4, 2, 2],
      leaver: [2, 1, 1],
    });
    // A thread's count (GraphQL `postCount`, REST `posts` in lists) is its starter and the replies its page
    // counts, for every caller and thread above: the authors of private replies count their own, and the
    // thread's author outside the hidden group their own posts, not the group's public reply (it counted that
    // reply: D2 in docs/policy-design.md).
    const postCounts: Record<string, (number | null)[]> = {};
    for (const [name, token] of Object.entries(callers)) {
      postCounts[name] = [];
      for (const id of [site, group, secluded]) {
        const answered = await gql(`query($id: ID!) { forumPost(id: $id) { postCount } }`, { id }, token);
        postCounts[name]!.push((answered.data?.forumPost as { postCount: number } | null)?.postCount ?? null);
      }
    }
    expect(postCounts).toEqual(Object.fromEntries(Object.entries(totals).map(([name, counted]) => [name, counted.map((total) => (total === null ? null : total + 1))])));
  });
});

describe("a review's findings (the second)", () => {
  const counts = async (category: number) =>
    (await gql(`query($id: ID!) { forumCategory(id: $id) { threadCount postCount } }`, { id: category })).data.forumCategory as { threadCount: number; postCount: number };
  const recount = async () =>
    sql().query<{ wrong: number }>(
      Prisma.sql`SELECT count(*)::int AS wrong FROM (
        SELECT category_id, thread_id, access, state, sum(threads)::int AS threads, sum(posts)::int AS posts FROM forum_counts GROUP BY 1, 2, 3, 4 HAVING sum(threads) <> 0 OR sum(posts) <> 0
        EXCEPT (SELECT category_id, thread_id, access, state, 0, count(*)::int FROM forum_posts WHERE thread_id <> 0 GROUP BY 1, 2, 3, 4
                UNION ALL SELECT category_id, 0, access, state, sum(starter)::int, count(*)::int FROM forum_posts GROUP BY 1, 3, 4)) differing`,
    );
  const newCategory = async (alias: string) => {
    const [section] = await sql().query<{ id: number }>(Prisma.sql`SELECT id FROM forum_sections WHERE scope = 'site' AND scope_id = 0 ORDER BY id LIMIT 1`);
    const made = await gql(`mutation($input: CreateForumCategoryInput!) { createForumCategory(input: $input) { id } }`, { input: { sectionId: section!.id, alias, title: alias } }, cast.admin.token);
    return Number(made.data.createForumCategory.id);
  };

  it("unpublishing or republishing a post moves the counts (they missed a change of own_state), which never go negative", async () => {
    const category = await newCategory("review-counts");
    const thread = (await post(cast.alice.token, { category_id: category, title: "Counted" })).body.id;
    const reply = (await post(cast.bob.token, { thread: String(thread) })).body.id;
    expect(await counts(category)).toEqual({ threadCount: 1, postCount: 2 });
    expect((await gql(`mutation($id: ID!) { publishForumPost(id: $id, published: false) { id } }`, { id: reply }, cast.bob.token)).errors).toBeUndefined();
    expect(await counts(category)).toEqual({ threadCount: 1, postCount: 1 });
    const read = await server.rest("GET", `/forum/${thread}`);
    expect({ total: read.body.total, shown: read.body.posts.length, posts: read.body.thread.posts }).toEqual({ total: 0, shown: 0, posts: 1 });
    expect((await gql(`mutation($id: ID!) { publishForumPost(id: $id, published: false) { id } }`, { id: thread }, cast.alice.token)).errors).toBeUndefined();
    expect(await counts(category)).toEqual({ threadCount: 0, postCount: 0 });
    expect((await gql(`mutation($id: ID!, $input: UpdateForumPostInput!) { updateForumPost(id: $id, input: $input) { id } }`, { id: thread, input: { access: "REGISTERED" } }, cast.alice.token)).errors).toBeUndefined();
    expect((await gql(`mutation($id: ID!) { publishForumPost(id: $id, published: true) { id } }`, { id: thread }, cast.alice.token)).errors).toBeUndefined();
    expect(await counts(category)).toEqual({ threadCount: 0, postCount: 0 });
    expect(await gql(`query($id: ID!) { forumCategory(id: $id) { threadCount postCount } }`, { id: category }, cast.bob.token)).toMatchObject({ data: { forumCategory: { threadCount: 1, postCount: 1 } } });
    expect(await recount()).toEqual([{ wrong: 0 }]);
  });

  it("edits, closing, pinning and unpublishing append forum.postUpdated naming what changed", async () => {
    const thread = (await post(cast.alice.token, { title: "Evented" })).body.id;
    expect((await gql(`mutation($id: ID!, $input: UpdateForumPostInput!) { updateForumPost(id: $id, input: $input) { id } }`, { id: thread, input: { title: "Evented again" } }, cast.alice.token)).errors).toBeUndefined();
    expect((await gql(`mutation($id: ID!) { closeForumThread(id: $id, closed: true) { id } }`, { id: thread }, cast.admin.token)).errors).toBeUndefined();
    expect((await gql(`mutation($id: ID!) { publishForumPost(id: $id, published: false) { id } }`, { id: thread }, cast.admin.token)).errors).toBeUndefined();
    const events = await sql().query<{ changed: string[] }>(Prisma.sql`SELECT changed FROM outbox WHERE type = 'forum.postUpdated' AND record_id = ${thread} ORDER BY id`);
    expect(events.map((event) => event.changed)).toEqual([["title"], ["closed"], expect.arrayContaining(["ownState", "state"])]);
  });

  it("a category moved to another section takes its posts along: the section filter finds them there, and deleting the old section leaves them", async () => {
    const category = await newCategory("review-moving");
    const thread = (await post(cast.alice.token, { category_id: category, title: "Moving" })).body.id;
    const made = await gql(`mutation($input: CreateForumSectionInput!) { createForumSection(input: $input) { id } }`, { input: { alias: "review-target", title: "Target" } }, cast.admin.token);
    const target = Number(made.data.createForumSection.id);
    const old = await gql(`mutation($input: CreateForumSectionInput!) { createForumSection(input: $input) { id } }`, { input: { alias: "review-old", title: "Old" } }, cast.admin.token);
    const oldSection = Number(old.data.createForumSection.id);
    // Into a section of its own first, then on to the target: the posts follow each move.
    for (const sectionId of [oldSection, target]) {
      const moved = await gql(`mutation($id: ID!, $input: UpdateForumCategoryInput!) { updateForumCategory(id: $id, input: $input) { id } }`, { id: category, input: { sectionId } }, cast.admin.token);
      expect(moved.errors, JSON.stringify(moved.errors)).toBeUndefined();
    }
    expect((await server.rest("GET", "/forum/list", { query: { section: target, threads_only: "true" } })).body.threads.map((item: { id: number }) => item.id)).toEqual([thread]);
    expect((await server.rest("GET", "/forum/list", { query: { section: oldSection } })).body.total).toBe(0);
    expect((await gql(`mutation($id: ID!) { deleteForumSection(id: $id) }`, { id: oldSection }, cast.admin.token)).errors).toBeUndefined();
    expect((await server.rest("GET", `/forum/${thread}`)).status).toBe(200);
  });

  it("an outsider's thread in a hidden group's scope is refused alike whether its default category is closed or not (a 409 told the group exists)", async () => {
    const { groupId, member, manager } = await server.cast("Reviewhidden");
    const first = await server.rest("POST", `/groups/${groupId}/forum`, { token: member.token, body: { title: "t", comment: "x" } });
    expect(first.status).toBe(201);
    expect((await server.rest("PUT", `/groups/${groupId}`, { token: manager.token, body: { title: "Reviewhidden", join_policy: "open", discoverability: "hidden" } })).status).toBe(200);
    const outsider = async (scopeId: number) => {
      const response = await post(cast.alice.token, { scope: "group", scope_id: scopeId, title: "probe" });
      return [response.status, response.body.errors?.[0]?.parameter];
    };
    const missing = await outsider(987654);
    expect(await outsider(groupId)).toEqual(missing);
    expect((await gql(`mutation($id: ID!) { updateForumCategory(id: $id, input: { closed: 1 }) { id } }`, { id: first.body.category_id }, manager.token)).errors).toBeUndefined();
    expect(await outsider(groupId)).toEqual(missing);
  });
});

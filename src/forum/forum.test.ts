import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer } from "../../test/server.js";

/**
 * The forum's own rules (docs/decisions.md, "Forum"): structure, closed and sticky, anonymity, inherited
 * visibility, counts per caller, the thread read and the user-category links. The list, access and paging
 * rules are the shared suites' (src/forum/testing.ts).
 */
let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("Forumgroup");
});

afterAll(() => server?.close());

const post = (token: string | undefined, body: Record<string, unknown>) =>
  server.rest("POST", "/forum", { token, body: { category_id: 0, scope: "site", scope_id: 0, comment: "Text.", ...body } });
const gql = async (query: string, variables: Record<string, unknown>, token?: string) => {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data: any; errors?: { message: string; extensions?: any }[] };
};

async function thread(token = cast.alice.token, body: Record<string, unknown> = {}) {
  const created = await post(token, { title: "A thread", ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: number; thread: number; category_id: number; scope: string; scope_id: number };
}

describe("structure", () => {
  it("a fresh site has a default section and category; category_id 0 posts to it, and a thread is its own starter", async () => {
    const sections = await server.rest("GET", "/forum/sections");
    expect(sections.status).toBe(200);
    expect(sections.body).toMatchObject({ success: true, total: 1, sections: [{ alias: "general", scope: "site", scope_id: 0 }] });
    const categories = await server.rest("GET", "/forum/categories", { query: { section: 0 } });
    expect(categories.body).toMatchObject({ success: true, total: 1, categories: [{ alias: "general", is_default: 1, closed: 0 }] });
    const started = await thread();
    expect(started.category_id).toBe(categories.body.categories[0].id);
    expect(started.thread).toBe(started.id);
    expect((started as unknown as { parent: number }).parent).toBe(0);
  });

  it("a named section that does not exist is 404 naming section; section=0 or none lists every section's categories (issue 32: it was 200 with nothing)", async () => {
    const sections = await server.rest("GET", "/forum/sections");
    const section = sections.body.sections[0].id as number;
    const unknown = await server.rest("GET", "/forum/categories", { query: { section: 987654 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual([{ parameter: "section", message: expect.stringContaining("no forum section") }]);
    const named = await server.rest("GET", "/forum/categories", { query: { section } });
    expect(named.status).toBe(200);
    expect(named.body.total).toBeGreaterThan(0);
    const all = await server.rest("GET", "/forum/categories");
    expect(all.body.total).toBe((await server.rest("GET", "/forum/categories", { query: { section: 0 } })).body.total);
    // GraphQL alike: the same service.
    const graphql = await server.graphqlText("{ forumCategories(section: 987654) { total } }");
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: "NOT_FOUND", errors: [{ parameter: "section" }] });
  });

  it("a section of another scope than the one listed is 404 naming section, not an empty list", async () => {
    const made = await gql(
      `mutation($g: Int!) { createForumSection(input: { alias: "elsewhere", title: "Elsewhere", scope: "group", scopeId: $g }) { id } }`,
      { g: cast.groupId },
      cast.admin.token,
    );
    const section = Number(made.data.createForumSection.id);
    const atSite = await server.rest("GET", "/forum/categories", { query: { section }, token: cast.admin.token });
    expect(atSite.status, JSON.stringify(atSite.body)).toBe(404);
    expect(atSite.body.errors).toEqual([{ parameter: "section", message: expect.stringContaining(`group ${cast.groupId}`) }]);
    const inGroup = await server.rest("GET", "/forum/categories", { query: { section, scope: "group", scope_id: cast.groupId }, token: cast.admin.token });
    expect(inGroup.status, JSON.stringify(inGroup.body)).toBe(200);
  });

  it("a reply takes its thread's category and scope whatever the request says, and parent defaults to the starter", async () => {
    const started = await thread();
    const reply = await post(cast.bob.token, { thread: String(started.id), category_id: 999, scope: "group", scope_id: cast.groupId });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body).toMatchObject({ thread: started.id, parent: started.id, category_id: started.category_id, scope: "site", scope_id: 0 });
  });

  it("a reply must belong to the thread it names: 400 naming thread or parent, nothing stored", async () => {
    const one = await thread();
    const other = await thread();
    const otherReply = await post(cast.bob.token, { thread: String(other.id) });
    const before = await server.rest("GET", "/forum/list", { query: { thread: one.id } });
    const wrongParent = await post(cast.bob.token, { thread: String(one.id), parent: otherReply.body.id });
    expect(wrongParent.status).toBe(400);
    expect(wrongParent.body.errors[0].parameter).toBe("parent");
    const noThread = await post(cast.bob.token, { thread: "999999" });
    expect(noThread.status).toBe(400);
    expect(noThread.body.errors[0].parameter).toBe("thread");
    const replyAsThread = await post(cast.bob.token, { thread: String(otherReply.body.id) });
    expect(replyAsThread.status).toBe(400);
    expect((await server.rest("GET", "/forum/list", { query: { thread: one.id } })).body.total).toBe(before.body.total);
  });
});

describe("closed and sticky", () => {
  it("a closed thread refuses replies: 409 saying it is closed, nothing stored; reopening lets them in", async () => {
    const started = await thread(cast.admin.token, { closed: 1 }); // starting a thread closed is moderation
    const refused = await post(cast.bob.token, { thread: String(started.id) });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/closed/);
    expect((await server.rest("GET", "/forum/list", { query: { thread: started.id } })).body.total).toBe(1);
    const reopened = await gql(`mutation($id: ID!) { closeForumThread(id: $id, closed: false) { closed } }`, { id: started.id }, cast.admin.token);
    expect(reopened.data.closeForumThread.closed).toBe(0);
    expect((await post(cast.bob.token, { thread: String(started.id) })).status).toBe(201);
  });

  it("only managers and administrators close or pin; authors may not (403)", async () => {
    const started = await thread();
    const byAuthor = await gql(`mutation($id: ID!) { pinForumThread(id: $id, sticky: true) { sticky } }`, { id: started.id }, cast.alice.token);
    expect(byAuthor.errors?.[0]?.extensions?.code).toBeDefined();
    const byAdmin = await gql(`mutation($id: ID!) { pinForumThread(id: $id, sticky: true) { sticky } }`, { id: started.id }, cast.admin.token);
    expect(byAdmin.data.pinForumThread.sticky).toBe(1);
  });

  it("sticky and closed apply only to starters: a reply stores neither", async () => {
    const started = await thread();
    const reply = await post(cast.bob.token, { thread: String(started.id), sticky: 1, closed: 1 });
    expect(reply.body).toMatchObject({ sticky: 0, closed: 0 });
    expect((await post(cast.bob.token, { thread: String(started.id) })).status).toBe(201);
  });

  it("a closed category refuses new threads and replies (409)", async () => {
    const section = await gql(`mutation { createForumSection(input: { alias: "closing", title: "Closing" }) { id } }`, {}, cast.admin.token);
    const category = await gql(
      `mutation($s: Int!) { createForumCategory(input: { sectionId: $s, alias: "shut", title: "Shut" }) { id } }`,
      { s: Number(section.data.createForumSection.id) },
      cast.admin.token,
    );
    const id = Number(category.data.createForumCategory.id);
    const started = await thread(cast.alice.token, { category_id: id });
    await gql(`mutation($id: ID!) { updateForumCategory(id: $id, input: { closed: 1 }) { closed } }`, { id }, cast.admin.token);
    const newThread = await post(cast.alice.token, { category_id: id, title: "No" });
    expect(newThread.status).toBe(409);
    expect(newThread.body.message).toMatch(/closed/);
    expect((await post(cast.bob.token, { thread: String(started.id) })).status).toBe(409);
    const closedOnly = await server.rest("GET", "/forum/categories", { query: { section: 0, closed: 1 } });
    expect(closedOnly.body.categories.map((c: { id: number }) => c.id)).toEqual([id]);
    expect((await server.rest("GET", "/forum/categories", { query: { section: 0, closed: 0 } })).body.categories.some((c: { id: number }) => c.id === id)).toBe(false);
  });

  it("last_activity moves with replies", async () => {
    const started = await thread();
    const before = (await server.rest("GET", `/forum/${started.id}`)).body.thread.last_activity;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await post(cast.bob.token, { thread: String(started.id) });
    const after = (await server.rest("GET", `/forum/${started.id}`)).body.thread.last_activity;
    expect(after > before).toBe(true);
  });
});

describe("who sees what", () => {
  it("an anonymous post shows no author to others, over REST and GraphQL; the author and administrators see it", async () => {
    const started = await thread(cast.alice.token, { anonymous: 1 });
    expect((await server.rest("GET", `/forum/${started.id}`, { token: cast.bob.token })).body.thread.created_by).toBeNull();
    expect((await server.rest("GET", `/forum/${started.id}`)).body.thread.created_by).toBeNull();
    expect((await server.rest("GET", `/forum/${started.id}`, { token: cast.alice.token })).body.thread.created_by).toBe(cast.alice.id);
    expect((await server.rest("GET", `/forum/${started.id}`, { token: cast.admin.token })).body.thread.created_by).toBe(cast.alice.id);
    const read = `query($id: ID!) { forumPost(id: $id) { createdById createdBy { id } } }`;
    expect((await gql(read, { id: started.id }, cast.bob.token)).data.forumPost).toEqual({ createdById: null, createdBy: null });
    expect((await gql(read, { id: started.id }, cast.alice.token)).data.forumPost.createdBy.id).toBe(String(cast.alice.id));
  });

  it("replies inherit what their starter hides: an unpublished or private thread hides its replies, in reads, lists and counts", async () => {
    const started = await thread(cast.alice.token, { title: "Hidden later" });
    const reply = await post(cast.bob.token, { thread: String(started.id) });
    expect((await server.rest("GET", `/forum/${started.id}`)).body.total).toBe(1);
    await gql(`mutation($id: ID!) { publishForumPost(id: $id, published: false) { state } }`, { id: started.id }, cast.admin.token);
    expect((await server.rest("GET", `/forum/${reply.body.id}`)).status).toBe(404);
    expect((await gql(`query($id: ID!) { forumPost(id: $id) { id } }`, { id: reply.body.id })).data?.forumPost ?? null).toBeNull();
    expect((await server.rest("GET", "/forum/list", { query: { thread: started.id } })).body.total).toBe(0);
    const privateThread = await thread(cast.alice.token, { access: 2 });
    const publicReply = await post(cast.bob.token, { thread: String(privateThread.id), access: 1 });
    expect(publicReply.body.access).toBe(2);
    expect((await gql(`query($id: ID!) { forumPost(id: $id) { id } }`, { id: publicReply.body.id })).data?.forumPost ?? null).toBeNull();
  });

  it("a reply to a thread the caller may not see is refused as one that does not exist, and writes nothing; its author and an administrator still reply", async () => {
    const started = await thread(cast.alice.token, { title: "Unpublished soon" });
    await gql(`mutation($id: ID!) { publishForumPost(id: $id, published: false) { state } }`, { id: started.id }, cast.admin.token);
    const before = await server.rest("GET", `/forum/${started.id}`, { token: cast.admin.token, query: { state: 1 } });
    const refused = await post(cast.bob.token, { thread: String(started.id), comment: "Into a hidden thread." });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ parameter: "thread", message: `Thread ${started.id} does not exist.` });
    const after = await server.rest("GET", `/forum/${started.id}`, { token: cast.admin.token, query: { state: 1 } });
    expect(after.body.total).toBe(before.body.total);
    expect((await post(cast.alice.token, { thread: String(started.id) })).status).toBe(201);
    expect((await post(cast.admin.token, { thread: String(started.id) })).status).toBe(201);
    // A reply is not a thread: replying "to" it names a thread that does not exist.
    const reply = await post(cast.alice.token, { thread: String(started.id) });
    expect((await post(cast.alice.token, { thread: String(reply.body.id) })).status).toBe(400);
  });

  it("counts are per caller: a private group thread counts for members only, and the last post is the last they may see", async () => {
    const group = await server.rest("GET", "/forum/categories", { query: { section: 0 } });
    const category = group.body.categories.find((c: { alias: string }) => c.alias === "general");
    const publicBefore = await gql(`query($id: ID!) { forumCategory(id: $id) { threadCount postCount lastPostId } }`, { id: category.id });
    const adminBefore = await gql(`query($id: ID!) { forumCategory(id: $id) { threadCount postCount } }`, { id: category.id }, cast.admin.token);
    const registered = await thread(cast.alice.token, { access: 2 });
    const publicAfter = await gql(`query($id: ID!) { forumCategory(id: $id) { threadCount postCount lastPostId } }`, { id: category.id });
    expect(publicAfter.data.forumCategory).toEqual(publicBefore.data.forumCategory);
    const adminAfter = await gql(`query($id: ID!) { forumCategory(id: $id) { threadCount postCount lastPostId } }`, { id: category.id }, cast.admin.token);
    expect(adminAfter.data.forumCategory.threadCount).toBe(adminBefore.data.forumCategory.threadCount + 1);
    expect(adminAfter.data.forumCategory.lastPostId).toBe(registered.id);
  });
});

describe("reading a thread", () => {
  it("answers the thread and its page of replies with their exact total; sort, start_id, start_at and limitstart page them", async () => {
    const started = await thread();
    const ids: number[] = [];
    for (let n = 0; n < 5; n += 1) ids.push((await post(cast.bob.token, { thread: String(started.id), comment: `Reply ${n}` })).body.id);
    const newest = await server.rest("GET", `/forum/${started.id}`, { query: { limit: 2 } });
    expect(newest.status).toBe(200);
    expect(newest.body.thread.id).toBe(started.id);
    expect(newest.body.total).toBe(5);
    expect(newest.body.posts.map((p: { id: number }) => p.id)).toEqual([ids[4], ids[3]]);
    const oldest = await server.rest("GET", `/forum/${started.id}`, { query: { sort: "oldest", limit: 2, limitstart: 1 } });
    expect(oldest.body.posts.map((p: { id: number }) => p.id)).toEqual([ids[1], ids[2]]);
    const fromId = await server.rest("GET", `/forum/${started.id}`, { query: { sort: "oldest", start_id: ids[3]! } });
    expect(fromId.body.posts.map((p: { id: number }) => p.id)).toEqual([ids[3], ids[4]]);
    expect(fromId.body.total).toBe(2);
    expect((await server.rest("GET", `/forum/${started.id}`, { query: { sort: "sideways" } })).status).toBe(400);
    expect((await server.rest("GET", `/forum/${started.id}`, { query: { category: "nope" } })).status).toBe(404);
    expect((await server.rest("GET", `/forum/${started.id}`, { query: { category: "general", section: "general" } })).status).toBe(200);
    expect((await server.rest("GET", `/forum/${ids[0]}`)).status).toBe(404);
  });

  it("lists threads only, a post's immediate replies, a thread's posts, with exact totals", async () => {
    const started = await thread();
    const first = await post(cast.bob.token, { thread: String(started.id) });
    await post(cast.bob.token, { thread: String(started.id), parent: first.body.id });
    await post(cast.bob.token, { thread: String(started.id), parent: first.body.id });
    expect((await server.rest("GET", "/forum/list", { query: { parent: first.body.id } })).body.total).toBe(2);
    expect((await server.rest("GET", "/forum/list", { query: { thread: started.id } })).body.total).toBe(4);
    const threads = await server.rest("GET", "/forum/list", { query: { threads_only: "true", limit: 100 } });
    expect(threads.body.threads.every((p: { id: number; thread: number }) => p.id === p.thread)).toBe(true);
  });
});

describe("user-category links (2.0)", () => {
  it("answer on /api/v2.0 and without a version, take the documented and the original client's names, and a user links only themselves", async () => {
    const categories = await server.rest("GET", "/forum/categories", { query: { section: 0 } });
    const id = categories.body.categories[0].id;
    const created = await server.rest("POST", "/v2.0/forum/userscategories/create", { token: cast.bob.token, body: { category_id: id, user_id: cast.bob.id } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // A create answers 201 with what it created: the links (issue 32; it was 200 with the category ids).
    expect(created.body).toEqual([{ user_id: cast.bob.id, category_id: id }]);
    const original = await server.rest("POST", "/forum/userscategories/create", { token: cast.bob.token, body: { userId: cast.bob.id, categoriesIds: [id] } });
    expect(original.status, JSON.stringify(original.body)).toBe(201);
    const other = await server.rest("POST", "/forum/userscategories/create", { token: cast.bob.token, body: { category_id: id, user_id: cast.alice.id } });
    expect(other.status).toBe(403);
    // `userId` is `user_id` under the original client's name: the same rule, and `user_id` wins when both are sent.
    const otherByOriginalName = await server.rest("POST", "/forum/userscategories/create", { token: cast.bob.token, body: { categoriesIds: [id], userId: cast.alice.id } });
    expect(otherByOriginalName.status).toBe(403);
    expect(otherByOriginalName.body.message).toContain("only themselves");
    const both = await server.rest("POST", "/forum/userscategories/create", { token: cast.bob.token, body: { category_id: id, user_id: cast.bob.id, userId: cast.alice.id } });
    expect(both.status, JSON.stringify(both.body)).toBe(201);
    const byAdmin = await server.rest("POST", "/forum/userscategories/create", { token: cast.admin.token, body: { category_id: id, user_id: cast.alice.id } });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body).toEqual([{ user_id: cast.alice.id, category_id: id }]);
    const links = await server.app.db.prisma.forumUserCategory.findMany({ where: { categoryId: id } });
    expect(links.map((link) => link.userId).sort()).toEqual([cast.bob.id, cast.alice.id].sort());
    const destroyed = await server.rest("DELETE", "/v2.0/forum/userscategories/destroy", { token: cast.bob.token, body: { userId: cast.bob.id, categoriesIds: [id] } });
    expect(destroyed.status, JSON.stringify(destroyed.body)).toBe(200);
    expect(await server.app.db.prisma.forumUserCategory.count({ where: { categoryId: id, userId: cast.bob.id } })).toBe(0);
    expect((await server.rest("POST", "/forum/userscategories/create", { body: { category_id: id, user_id: 1 } })).status).toBe(401);
    // One category missing: 400 naming it, and none of the others linked.
    const partly = await server.rest("POST", "/forum/userscategories/create", { token: cast.alice.token, body: { user_id: cast.alice.id, categoriesIds: [id, 987654] } });
    expect(partly.status).toBe(400);
    expect(partly.body.errors[0]).toMatchObject({ parameter: "category_id", message: "Category 987654 does not exist." });
    expect(await server.app.db.prisma.forumUserCategory.count({ where: { categoryId: id, userId: cast.alice.id } })).toBe(1);
    const unknownUser = await server.rest("POST", "/forum/userscategories/create", { token: cast.admin.token, body: { category_id: id, user_id: 987654 } });
    expect(unknownUser.status).toBe(400);
    expect(unknownUser.body.errors[0].parameter).toBe("user_id");
  });
});

describe("statements", () => {
  it("a category's thread list with authors, post counts and last posts costs as many statements for 25 threads as for 2", async () => {
    const section = await gql(`mutation { createForumSection(input: { alias: "counted", title: "Counted" }) { id } }`, {}, cast.admin.token);
    const made = await gql(
      `mutation($s: Int!) { createForumCategory(input: { sectionId: $s, alias: "counted", title: "Counted" }) { id } }`,
      { s: Number(section.data.createForumSection.id) },
      cast.admin.token,
    );
    const category = Number(made.data.createForumCategory.id);
    for (let n = 0; n < 26; n += 1) {
      const started = await thread(n % 2 ? cast.alice.token : cast.bob.token, { category_id: category, anonymous: n % 5 === 0 ? 1 : 0 });
      await post(cast.member.token, { thread: String(started.id) });
    }
    const query = `query($c: Int!, $limit: Int!) { forumPosts(category: $c, threadsOnly: true, limit: $limit) { total items { id createdById createdBy { id username } postCount lastPostId } } }`;
    for (const token of [undefined, cast.bob.token]) {
      const small = await server.recordQueries(() => gql(query, { c: category, limit: 2 }, token));
      const large = await server.recordQueries(() => gql(query, { c: category, limit: 25 }, token));
      expect(large.result.data.forumPosts.items).toHaveLength(25);
      expect(large.result.data.forumPosts.total).toBe(26);
      expect(large.result.data.forumPosts.items.every((item: { id: string; postCount: number; lastPostId: number }) => item.postCount === 2 && item.lastPostId > Number(item.id))).toBe(true);
      expect(large.queries.length, large.queries.join("\n")).toBe(small.queries.length);
      const rest = await server.recordQueries(() => server.rest("GET", "/forum/list", { token, query: { category, threads_only: "true", limit: 25 } }));
      expect(rest.result.body.threads).toHaveLength(25);
      expect(rest.result.body.total).toBe(26);
      expect(rest.queries.length).toBeLessThanOrEqual(small.queries.length + 1);
    }
  });
});

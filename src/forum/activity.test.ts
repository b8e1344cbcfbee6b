import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { drainAll } from "../events/dispatcher.js";
import { ACTIVITY_CONSUMER } from "../activity/consumer.js";
import { startServer, type Cast, type TestServer, type TestUser } from "../../test/server.js";
import { subscribeOverSse } from "../../test/sse.js";
import { hubOf } from "../events/subscriptions.js";

/** The forum's entries in the activity feed (src/forum/activity.ts): threads to their scope and category's linked users, replies to the thread's participants and them. */
let server: TestServer;
let cast: Cast;
let watcher: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("Forumfeed");
  watcher = await server.user();
  stranger = await server.user();
  const linked = await server.rest("POST", "/v2.0/forum/userscategories/create", { token: watcher.token, body: { category_id: 0, user_id: 0 } });
  expect(linked.status, JSON.stringify(linked.body)).toBe(201);
});
afterAll(() => server?.close());

const post = (user: TestUser, body: Record<string, unknown>) =>
  server.rest("POST", "/forum", { token: user.token, body: { category_id: 0, scope: "site", scope_id: 0, comment: "Text.", ...body } });
const entryFor = async (recordId: number) => {
  for (let tries = 0; tries < 100; tries++) {
    await drainAll(server.app.db.prisma, ACTIVITY_CONSUMER);
    const [row] = await sqlClientOf(server.app.db.prisma).query<{ id: number; recipients: string; anonymous: number; description: string }>(
      Prisma.sql`SELECT a.id, a.recipients, a.anonymous, a.description FROM activity a JOIN outbox o ON o.id = a.source_event WHERE o.area = 'forum' AND o.record_id = ${recordId}`,
    );
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no activity entry for forum post ${recordId}`);
};
const feedOf = async (user: TestUser) => {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${user.token}` },
    body: JSON.stringify({ query: "{ activityFeed(limit: 100) { items { id description } total } }" }),
  });
  return ((await response.json()) as { data: { activityFeed: { items: { id: string; description: string }[] } } }).data.activityFeed.items.map((item) => Number(item.id));
};

describe("forum posts in the activity feed", () => {
  it("a new thread goes to the most recently linked 1,000 of its category's users, not to every one (anyone may link themselves)", async () => {
    const sql = sqlClientOf(server.app.db.prisma);
    const [section] = await sql.query<{ id: number }>(Prisma.sql`SELECT id FROM forum_sections WHERE scope = 'site' AND scope_id = 0 ORDER BY id LIMIT 1`);
    const made = await server.graphqlText(`mutation($input: CreateForumCategoryInput!) { createForumCategory(input: $input) { id } }`, { input: { sectionId: section!.id, alias: "followed", title: "Followed" } }, cast.admin.token);
    const category = Number(made.data.createForumCategory.id);
    // 1,050 followers, linked a second apart, the earliest 50 first.
    await sql.query(Prisma.sql`WITH made AS (
        INSERT INTO users (username, email, name, password_hash) SELECT 'follower' || n, 'follower' || n || '@example.org', 'Follower', 'x' FROM generate_series(1, 1050) AS n RETURNING id)
      INSERT INTO forum_user_categories (user_id, category_id, created) SELECT id, ${category}, now() - (2000 - id) * interval '1 second' FROM made`);
    const earliest = await sql.query<{ user_id: number }>(Prisma.sql`SELECT user_id FROM forum_user_categories WHERE category_id = ${category} ORDER BY created LIMIT 50`);
    const thread = await post(cast.alice, { category_id: category, title: "To the followers" });
    expect(thread.status).toBe(201);
    const members = (await entryFor(thread.body.id)).recipients.split(",").filter((recipient) => recipient.startsWith("member:"));
    // The followers and the author.
    expect(members).toHaveLength(1001);
    for (const { user_id: left } of earliest) expect(members).not.toContain(`member:${left}`);
  }, 120_000);

  it("a new thread goes to its scope, its author and the category's linked users", async () => {
    const started = await post(cast.bob, { title: "Feed thread" });
    const entry = await entryFor(started.body.id);
    expect(entry.description).toBe("Forum thread started: Feed thread");
    expect(entry.recipients.split(",").sort()).toEqual(["site:0", `member:${cast.bob.id}`, `member:${watcher.id}`].sort());
    expect(await feedOf(watcher)).toContain(entry.id);
  });

  it("a reply goes to the thread's participants and the category's linked users, not to the site or others", async () => {
    const started = await post(cast.bob, { title: "Replied thread" });
    await post(cast.member, { thread: String(started.body.id), comment: "First reply" });
    const reply = await post(cast.alice, { thread: String(started.body.id), comment: "Second reply" });
    const entry = await entryFor(reply.body.id);
    expect(entry.description).toBe(`Forum reply in thread ${started.body.id}`);
    expect(entry.recipients.split(",").sort()).toEqual([`member:${cast.alice.id}`, `member:${cast.bob.id}`, `member:${cast.member.id}`, `member:${watcher.id}`].sort());
    for (const user of [cast.bob, cast.member, watcher]) expect(await feedOf(user)).toContain(entry.id);
    expect(await feedOf(stranger)).not.toContain(entry.id);
    expect((await server.rest("GET", `/activity/${entry.id}`)).status).toBe(404);
  });

  it("a post given to another author by an administrator makes them a participant: the thread's next reply's entry goes to them", async () => {
    const started = await post(cast.bob, { title: "Handed-over reply" });
    const reply = await post(cast.member, { thread: String(started.body.id), comment: "To be handed over" });
    const handed = await server.graphqlText(`mutation($id: ID!, $input: UpdateForumPostInput!) { updateForumPost(id: $id, input: $input) { id } }`, { id: reply.body.id, input: { createdBy: stranger.id } }, cast.admin.token);
    expect(handed.errors, JSON.stringify(handed.errors)).toBeUndefined();
    const next = await post(cast.alice, { thread: String(started.body.id), comment: "Next" });
    expect((await entryFor(next.body.id)).recipients.split(",")).toContain(`member:${stranger.id}`);
  });

  it("an anonymous reply's entry names no author; a private thread's entries reach only who may read it", async () => {
    const started = await post(cast.bob, { title: "Anonymous replies here" });
    const reply = await post(cast.alice, { thread: String(started.body.id), comment: "Who am I", anonymous: 1 });
    const entry = await entryFor(reply.body.id);
    expect(entry.anonymous).toBe(1);
    const read = await server.rest("GET", `/activity/${entry.id}`, { token: cast.bob.token });
    expect(read.status).toBe(200);
    expect(read.body.created_by).toBeNull();

    const secret = await server.rest("POST", `/groups/${cast.groupId}/forum`, { token: cast.member.token, body: { title: "Members only", comment: "Text.", access: 5 } });
    expect(secret.status, JSON.stringify(secret.body)).toBe(201);
    const linked = await server.rest("POST", "/v2.0/forum/userscategories/create", { token: watcher.token, body: { category_id: secret.body.category_id, user_id: 0 } });
    expect(linked.status).toBe(201); // a visible group's category: linked, but its private posts are not theirs to read
    const secretReply = await server.rest("POST", `/groups/${cast.groupId}/forum`, { token: cast.manager.token, body: { thread: String(secret.body.id), comment: "Reply" } });
    const secretEntry = await entryFor(secretReply.body.id);
    expect(secretEntry.recipients.split(",").sort()).toEqual([`member:${cast.manager.id}`, `member:${cast.member.id}`].sort());
  });
});

describe("a thread's new posts (subscription forumThreadPosts)", () => {
  it("delivers the thread's new replies the subscriber may read, nothing of other threads; a thread they may not read is refused", async () => {
    const hub = hubOf(server.app.db.prisma);
    const started = await post(cast.bob, { title: "Watched thread" });
    const other = await post(cast.bob, { title: "Unwatched thread" });
    const watching = await subscribeOverSse<{ id: string; comment: string } | null>(
      server.url,
      hub,
      `subscription($thread: ID!) { forumThreadPosts(thread: $thread) { id comment } }`,
      { thread: started.body.id },
      stranger.token,
    );
    expect(watching.errors).toEqual([]);
    await post(cast.alice, { thread: String(other.body.id), comment: "Elsewhere" });
    await post(cast.alice, { thread: String(started.body.id), comment: "Watched reply" });
    await post(cast.alice, { thread: String(started.body.id), comment: "A draft", state: 0 });
    await post(cast.member, { thread: String(started.body.id), comment: "Second watched reply" });
    for (let waited = 0; watching.events.length < 2 && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await watching.close();
    expect(watching.events.map((event) => event?.comment)).toEqual(["Watched reply", "Second watched reply"]);

    const hidden = await server.rest("POST", `/groups/${cast.groupId}/forum`, { token: cast.member.token, body: { title: "Members only", comment: "Text.", access: 5 } });
    const refused = await subscribeOverSse(server.url, hub, `subscription($thread: ID!) { forumThreadPosts(thread: $thread) { id } }`, { thread: hidden.body.id }, stranger.token);
    expect(JSON.stringify(refused.errors)).toContain("not found");
    await refused.close();
  });
});

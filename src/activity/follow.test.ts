import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { hubOf, type DeliveredEvent } from "../events/subscriptions.js";
import { drainAll } from "../events/dispatcher.js";
import { ACTIVITY_CONSUMER } from "./consumer.js";
import { loadConfig } from "../config.js";
import { checkWindows } from "../events/windows.js";
import { startServer, type Cast, type TestServer, type TestUser } from "../../test/server.js";

/**
 * An entry the consumer wrote for a record follows the record (src/activity/readers.ts, docs/decisions.md
 * "Activity"): who it reaches is decided again when the record, its thread or its group changes who may read
 * it, and it goes with the record. Issue 15: "a private record's activity never reaches someone who may not
 * read the record, and an anonymous one never names its author".
 */
let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("Followers");
});
afterAll(() => server?.close());

interface Entry {
  id: number;
  recipients: string;
  anonymous: number;
}
const sql = () => sqlClientOf(server.app.db.prisma);
const entryOf = async (area: string, record: number): Promise<Entry | undefined> =>
    (
    await sql().query<Entry>(
      Prisma.sql`SELECT a.id, a.recipients, a.anonymous FROM activity a JOIN outbox o ON o.id = a.source_event WHERE o.area = ${area} AND o.record_id = ${record} AND o.type LIKE '%Created'`,
    )
  )[0];

/** Runs the consumer until `check` holds of the record's entry (the server's own dispatcher may take a batch first). */
async function settled(area: string, record: number, check: (entry: Entry | undefined) => boolean): Promise<Entry | undefined> {
  let entry: Entry | undefined;
  for (let tries = 0; tries < 100; tries++) {
    await drainAll(server.app.db.prisma, ACTIVITY_CONSUMER);
    entry = await entryOf(area, record);
    if (check(entry)) return entry;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the ${area} ${record} entry did not settle: ${JSON.stringify(entry)}`);
}
const members = (entry: Entry | undefined) => (entry?.recipients ?? "").split(",").filter(Boolean).sort();
const readAs = (user: TestUser | null, id: number) => server.rest("GET", `/activity/${id}`, user ? { token: user.token } : {});
const feedOf = async (user: TestUser) => {
  const answer = await server.graphqlText(`{ activityFeed(limit: 100) { items { id } } }`, {}, user.token);
  return (answer as { data: { activityFeed: { items: { id: string }[] } } }).data.activityFeed.items.map((item) => Number(item.id));
};
const gql = async (query: string, variables: Record<string, unknown>, user: TestUser) => {
  const answer = (await server.graphqlText(query, variables, user.token)) as { data: Record<string, unknown> | null; errors?: unknown[] };
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  return answer.data;
};
const forumPost = async (user: TestUser, path: string, body: Record<string, unknown>) => {
  const made = await server.rest("POST", path, { token: user.token, body: { comment: "Text.", ...body } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { id: number; category_id: number };
};
const updateForumPost = (user: TestUser, id: number, input: Record<string, unknown>) =>
  gql(`mutation($id: ID!, $input: UpdateForumPostInput!) { updateForumPost(id: $id, input: $input) { id } }`, { id, input }, user);

describe("an activity entry follows its record", () => {
  it("a wiki page made private leaves the site, and comes back when public again; each change is an activityEntryUpdated event", async () => {
    const made = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Followed page", pagetext: "Text.", state: 1 } });
    expect(made.status).toBe(201);
    const entry = (await settled("wiki", made.body.id, (found) => found !== undefined))!;
    expect(members(entry)).toEqual(["member:" + cast.alice.id, "site:0"].sort());
    expect((await readAs(null, entry.id)).status).toBe(200);
    const [source] = await sql().query(Prisma.sql`SELECT source_area, source_record, candidates FROM activity WHERE id = ${entry.id}`);
    expect(source).toEqual({ source_area: "wiki", source_record: made.body.id, candidates: `site:0,member:${cast.alice.id}` });

    await gql(`mutation($id: ID!) { updateWikiPage(id: $id, input: { access: PRIVATE }) { id } }`, { id: made.body.id }, cast.alice);
    expect(members(await settled("wiki", made.body.id, (found) => !found?.recipients.includes("site:0")))).toEqual([`member:${cast.alice.id}`]);
    expect((await readAs(null, entry.id)).status).toBe(404);
    expect((await readAs(cast.bob, entry.id)).status).toBe(404);
    const [event] = await sql().query<{ changed: string[]; actor_id: number | null }>(
      Prisma.sql`SELECT changed, actor_id FROM outbox WHERE type = 'activity.activityEntryUpdated' AND record_id = ${entry.id} ORDER BY id DESC LIMIT 1`,
    );
    expect(event).toEqual({ changed: ["recipients"], actor_id: null });

    await gql(`mutation($id: ID!) { updateWikiPage(id: $id, input: { access: PUBLIC }) { id } }`, { id: made.body.id }, cast.alice);
    await settled("wiki", made.body.id, (found) => found?.recipients.includes("site:0") ?? false);
    expect((await readAs(null, entry.id)).status).toBe(200);
  });

  it("a change readers do not depend on (a page's text) decides nothing again", async () => {
    const made = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Edited page", pagetext: "Text.", state: 1 } });
    const entry = (await settled("wiki", made.body.id, (found) => found !== undefined))!;
    // A recipient the page's readers do not explain: kept, as nothing about who reads the page changed.
    await sql().query(Prisma.sql`UPDATE activity SET candidates = candidates || ',member:${Prisma.raw(String(cast.bob.id))}' WHERE id = ${entry.id}`);
    await gql(`mutation($id: ID!) { updateWikiPage(id: $id, input: { pagetext: "New text." }) { id } }`, { id: made.body.id }, cast.alice);
    await gql(`mutation($id: ID!) { updateWikiPage(id: $id, input: { access: REGISTERED }) { id } }`, { id: made.body.id }, cast.alice);
    // The access change decides again from the candidates: bob may read a registered page.
    expect(members(await settled("wiki", made.body.id, (found) => !found?.recipients.includes("site:0")))).toEqual([`member:${cast.alice.id}`, `member:${cast.bob.id}`].sort());
    const updates = await sql().query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM outbox WHERE type = 'activity.activityEntryUpdated' AND record_id = ${entry.id}`);
    expect(updates[0]!.n).toBe(1);
  });

  it("a blog entry scheduled for later reaches the site when its window opens", async () => {
    await checkWindows(server.app.db.prisma, loadConfig({})); // the windows' first look: from now on
    const opens = new Date(Date.now() + 3000).toISOString().slice(0, 19).replace("T", " ");
    const made = await server.rest("POST", "/blog", { token: cast.alice.token, body: { scope: "site", scope_id: 0, title: "Scheduled", content: "Text.", state: 1, publish_up: opens } });
    expect(made.status).toBe(201);
    expect(members(await settled("blog", made.body.id, (found) => found !== undefined))).toEqual([`member:${cast.alice.id}`]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (let tries = 0; tries < 20 && !(await entryOf("blog", made.body.id))?.recipients.includes("site:0"); tries++) {
      await checkWindows(server.app.db.prisma, loadConfig({}));
      await drainAll(server.app.db.prisma, ACTIVITY_CONSUMER);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(members(await entryOf("blog", made.body.id))).toEqual([`member:${cast.alice.id}`, "site:0"].sort());
  });

  it("a deleted blog entry takes its activity entry, with an activityEntryDeleted event", async () => {
    const made = await server.rest("POST", "/blog", { token: cast.alice.token, body: { scope: "site", scope_id: 0, title: "Short-lived", content: "Text.", state: 1 } });
    expect(made.status).toBe(201);
    const entry = (await settled("blog", made.body.id, (found) => found !== undefined))!;
    expect((await server.rest("DELETE", `/blog/${made.body.id}`, { token: cast.alice.token })).status).toBe(204);
    await settled("blog", made.body.id, (found) => found === undefined);
    expect((await readAs(cast.admin, entry.id)).status).toBe(404);
    const gone = await sql().query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM outbox WHERE type = 'activity.activityEntryDeleted' AND record_id = ${entry.id}`);
    expect(gone[0]!.n).toBe(1);
  });

  it("a thread made anonymous hides its entry's author; unpublished, its replies' entries leave those who no longer read them", async () => {
    const thread = await forumPost(cast.bob, "/forum", { category_id: 0, scope: "site", scope_id: 0, title: "Followed thread" });
    const reply = await forumPost(cast.member, "/forum", { category_id: 0, scope: "site", scope_id: 0, thread: String(thread.id) });
    const threadEntry = (await settled("forum", thread.id, (found) => found !== undefined))!;
    const replyEntry = (await settled("forum", reply.id, (found) => found !== undefined))!;
    expect(members(replyEntry)).toEqual([`member:${cast.bob.id}`, `member:${cast.member.id}`].sort());

    await updateForumPost(cast.bob, thread.id, { anonymous: 1 });
    await settled("forum", thread.id, (found) => found?.anonymous === 1);
    expect((await readAs(cast.member, threadEntry.id)).body.created_by).toBeNull();
    expect((await readAs(cast.bob, threadEntry.id)).body.created_by).toBe(cast.bob.id);

    // A moderator unpublishes the thread: its reply is no longer readable by the thread's author either.
    await updateForumPost(cast.admin, thread.id, { state: 0 });
    expect(members(await settled("forum", reply.id, (found) => !found?.recipients.includes(`member:${cast.bob.id}`)))).toEqual([]);
    expect((await readAs(cast.bob, replyEntry.id)).status).toBe(404);
    expect(await feedOf(cast.bob)).not.toContain(replyEntry.id);
    expect((await readAs(null, threadEntry.id)).status).toBe(404);

    await updateForumPost(cast.admin, thread.id, { state: 1 });
    await settled("forum", reply.id, (found) => found?.recipients.includes(`member:${cast.bob.id}`) ?? false);
    expect(await feedOf(cast.bob)).toContain(replyEntry.id);
  });

  it("a group made hidden: its records' entries leave the non-members they were sent to, and come back when it is shown again", async () => {
    const watcher = await server.user();
    const thread = await forumPost(cast.member, `/groups/${cast.groupId}/forum`, { title: "Group thread" });
    const linked = await server.rest("POST", "/v2.0/forum/userscategories/create", { token: watcher.token, body: { category_id: thread.category_id, user_id: 0 } });
    expect(linked.status).toBe(201);
    const reply = await forumPost(cast.manager, `/groups/${cast.groupId}/forum`, { thread: String(thread.id) });
    const entry = (await settled("forum", reply.id, (found) => found !== undefined))!;
    expect(members(entry)).toContain(`member:${watcher.id}`);

    await gql(`mutation($id: ID!) { updateGroup(id: $id, input: { discoverability: HIDDEN }) { id } }`, { id: String(cast.groupId) }, cast.manager);
    expect(members(await settled("forum", reply.id, (found) => !found?.recipients.includes(`member:${watcher.id}`)))).toEqual([`member:${cast.manager.id}`, `member:${cast.member.id}`].sort());
    expect(await feedOf(watcher)).not.toContain(entry.id);

    await gql(`mutation($id: ID!) { updateGroup(id: $id, input: { discoverability: VISIBLE }) { id } }`, { id: String(cast.groupId) }, cast.manager);
    await settled("forum", reply.id, (found) => found?.recipients.includes(`member:${watcher.id}`) ?? false);
    expect(await feedOf(watcher)).toContain(entry.id);
  });

  it("a member who leaves a group no longer gets the entries of its private records sent to them by name; rejoining, they do again", async () => {
    const joiner = await server.user();
    await gql(`mutation($group: ID!) { joinGroup(group: $group) { id } }`, { group: String(cast.groupId) }, joiner);
    const thread = await forumPost(joiner, `/groups/${cast.groupId}/forum`, { title: "Members' thread", access: 5 });
    const reply = await forumPost(cast.manager, `/groups/${cast.groupId}/forum`, { thread: String(thread.id) });
    const entry = (await settled("forum", reply.id, (found) => found !== undefined))!;
    expect(members(entry)).toEqual([`member:${cast.manager.id}`, `member:${joiner.id}`].sort());
    expect((await readAs(joiner, entry.id)).status).toBe(200);

    await gql(`mutation($group: ID!) { leaveGroup(group: $group) { id } }`, { group: String(cast.groupId) }, joiner);
    expect(members(await settled("forum", reply.id, (found) => !found?.recipients.includes(`member:${joiner.id}`)))).toEqual([`member:${cast.manager.id}`]);
    expect((await readAs(joiner, entry.id)).status).toBe(404);

    await gql(`mutation($group: ID!) { joinGroup(group: $group) { id } }`, { group: String(cast.groupId) }, joiner);
    await settled("forum", reply.id, (found) => found?.recipients.includes(`member:${joiner.id}`) ?? false);
    expect((await readAs(joiner, entry.id)).status).toBe(200);
  });
});

describe("a review's findings (entries following their records)", () => {
  const drain = async () => {
    for (let i = 0; i < 5; i++) await drainAll(server.app.db.prisma, ACTIVITY_CONSUMER);
  };
  const freshToken = async (user: TestUser) => {
    const token = await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username: user.username, password: user.password } });
    return { ...user, token: token.body.access_token as string };
  };

  it("a member is kept as a recipient as a member, never as an administrator: a demoted one keeps nothing only that let them read", async () => {
    const thread = await forumPost(cast.member, `/groups/${cast.groupId}/forum`, { title: "Members only, administrators linked", access: 5 });
    const admin = await server.user({ admin: true });
    expect((await server.rest("POST", "/v2.0/forum/userscategories/create", { token: admin.token, body: { category_id: thread.category_id, user_id: 0 } })).status).toBe(201);
    const reply = await forumPost(cast.manager, `/groups/${cast.groupId}/forum`, { thread: String(thread.id) });
    const entry = (await settled("forum", reply.id, (found) => found !== undefined))!;
    expect(members(entry)).not.toContain(`member:${admin.id}`);
    // Demoted as `hubgraph users set-admin … false` does: a plain update, no event.
    await server.app.db.prisma.user.update({ where: { id: admin.id }, data: { isAdmin: false } });
    await drain();
    expect((await readAs(await freshToken(admin), entry.id)).status).toBe(404);
  });

  it("nobody moves an entry that follows its record out of its record's scope, or changes its author or time (a group's later hiding finds it by scope)", async () => {
    const thread = await forumPost(cast.member, `/groups/${cast.groupId}/forum`, { title: "Stays in the group" });
    const reply = await forumPost(cast.manager, `/groups/${cast.groupId}/forum`, { thread: String(thread.id) });
    const entry = (await settled("forum", reply.id, (found) => found !== undefined))!;
    for (const [user, body] of [
      [cast.manager, { scope: "site", scope_id: 0 }],
      [cast.admin, { scope: "site", scope_id: 0 }],
      [cast.admin, { crated_by: cast.bob.id }],
      [cast.admin, { created: "2020-01-01 00:00:00" }],
    ] as const) {
      const moved = await server.rest("PUT", `/activity/${entry.id}`, { token: user.token, body });
      expect(moved.status, JSON.stringify([body, moved.body])).toBe(403);
    }
    expect((await server.rest("PUT", `/activity/${entry.id}`, { token: cast.manager.token, body: { description: "Reworded" } })).status).toBe(200);
  });

  it("an event of a record made anonymous later names no actor to a subscriber resuming from before", async () => {
    const thread = await forumPost(cast.bob, "/forum", { category_id: 0, scope: "site", scope_id: 0, title: "Later anonymous" });
    const entry = (await settled("forum", thread.id, (found) => found !== undefined))!;
    const [created] = await sql().query<{ id: string; xid: string }>(Prisma.sql`SELECT id::text, xid::text FROM outbox WHERE type = 'activity.activityEntryCreated' AND record_id = ${entry.id}`);
    await updateForumPost(cast.bob, thread.id, { anonymous: 1 });
    await settled("forum", thread.id, (found) => found?.anonymous === 1);
    const viewer = { user: { id: cast.member.id, username: cast.member.username, isAdmin: false }, via: "token" as const };
    for (const [area, record] of [
      ["activity", entry.id],
      ["forum", thread.id],
    ] as const) {
      const stream = await hubOf(server.app.db.prisma).subscribe(viewer, (event) => event.area === area && event.recordId === record, { xid: created!.xid, id: "0" });
      const first = (await stream.next()).value as DeliveredEvent;
      await stream.return?.();
      expect([first.type, first.actorId]).toEqual([area === "activity" ? "activity.activityEntryCreated" : "forum.postUpdated", null]);
    }
  });

  it("a thread of 2,000 replies unpublished by its author: the replies' entries are decided again in bounded steps, and the feed goes on meanwhile", async () => {
    const thread = await forumPost(cast.bob, "/forum", { category_id: 0, scope: "site", scope_id: 0, title: "Huge thread" });
    await settled("forum", thread.id, (found) => found !== undefined);
    const users = await sql().query<{ id: number }>(
      Prisma.sql`INSERT INTO users (username, email, name, password_hash) SELECT 'huge_' || g, 'huge_' || g || '@example.test', 'n', 'x' FROM generate_series(1, 100) g RETURNING id`,
    );
    const ids = users.map((user) => user.id);
    const candidates = ids.map((id) => `member:${id}`).join(",");
    await sql().query(Prisma.sql`WITH posts AS (
        INSERT INTO forum_posts (category_id, section_id, thread_id, starter, parent_id, comment, scope, scope_id, created_by)
        SELECT p.category_id, p.section_id, p.id, 0, p.id, 'x', 'site', 0, (${ids}::int[])[1 + g % 100] FROM forum_posts p, generate_series(1, 2000) g WHERE p.id = ${thread.id}
        RETURNING id, created_by)
      INSERT INTO activity (scope, scope_id, action, description, recipients, created_by, source_area, source_record, candidates)
      SELECT 'site', 0, 'forum.postCreated', 'Forum reply', ${candidates}, created_by, 'forum', id, ${candidates} FROM posts`);
    await updateForumPost(cast.bob, thread.id, { state: 0 });
    // (The statements above hold PGlite's thread for seconds; the test server keeps idle connections open past
    // that, so the next request cannot meet its close: test/server.ts.)
    const later = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Written after the huge thread", pagetext: "Text.", state: 1 } });
    // The next drains write the page's entry though most replies' entries wait their turn.
    expect(await settled("wiki", later.body.id, (found) => found !== undefined)).toBeDefined();
    const left = async () =>
      (await sql().query<{ marked: number; reaching: number }>(Prisma.sql`SELECT count(*) FILTER (WHERE a.revise)::int AS marked, count(*) FILTER (WHERE a.recipients <> '')::int AS reaching
        FROM activity a JOIN forum_posts p ON p.id = a.source_record WHERE a.source_area = 'forum' AND p.thread_id = ${thread.id} AND p.starter = 0`))[0]!;
    // Drained here and by the server's own dispatcher: a drain that finds the other one at work returns at once
    // (seen on a loaded machine: 200 such returns in a row inside the other's step), so wait for it instead of
    // counting tries.
    const deadline = Date.now() + 120_000;
    while ((await left()).marked > 0 && Date.now() < deadline) {
      if (!(await drainAll(server.app.db.prisma, ACTIVITY_CONSUMER)).worked) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Nobody but administrators and the thread's author reads its replies now; the authors of replies neither.
    expect(await left()).toEqual({ marked: 0, reaching: 0 });
  }, 300_000);
});

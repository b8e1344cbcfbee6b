import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
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
    expect(linked.status).toBe(200);
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

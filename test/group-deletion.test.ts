import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../src/generated/prisma/client.js";
import { modelInfo } from "../src/common/model.js";
import { sqlClientOf } from "../src/db/sql.js";
import { scopeContents } from "../src/common/scope-content.js";
import pg from "pg";
import { startServer, type TestServer, type TestUser } from "./server.js";
import { describeOnPostgres } from "./postgres-only.js";

/**
 * Deleting a group removes everything in it (docs/decisions.md, "Deleting a group"): every model with
 * scope columns is either some area's registered group content (src/common/scope-content.ts) or named here as
 * not content, with the reason. A model added later with scope columns and neither fails the first test,
 * so no area can leave a deleted group's records behind.
 */
const NOT_CONTENT: Record<string, string> = {
  OutboxEvent: "the record of what happened: a deleted group's events stay for their subscribers",
  ListCount: "counters kept by triggers: the group's rows drop to zero as its records go, and deleteGroup removes them (forgetScopeCounts)",
  ListVersion: "version stamps of list totals, not records",
  ListCountDay: "per-day counters kept by triggers, not records; deleteGroup removes the group's (forgetScopeCounts)",
};

let server: TestServer;
let owner: TestUser, member: TestUser, stranger: TestUser, admin: TestUser;

beforeAll(async () => {
  server = await startServer();
  [owner, member, stranger, admin] = await Promise.all([server.user(), server.user(), server.user(), server.user({ admin: true })]);
});
afterAll(() => server?.close());

/** The Prisma models that carry scope/scopeId. */
function scopedModels(): string[] {
  const models = Object.keys((server.app.db.prisma as unknown as { _runtimeDataModel: { models: Record<string, unknown> } })._runtimeDataModel.models);
  return models.filter((model) => {
    const info = modelInfo(server.app.db.prisma, model);
    return info.fields.has("scope") && info.fields.has("scopeId");
  });
}

async function newGroup(discoverability = "visible") {
  const cn = `gone${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
  const created = await server.rest("POST", "/groups", { token: owner.token, body: { cn, title: "Going away", join_policy: "open", discoverability } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const gid = created.body.gidNumber as number;
  const join = await server.rest("GET", `/groups/${gid}`, { token: member.token }); // visible groups only; members join through GraphQL
  if (discoverability === "visible") expect(join.status).toBe(200);
  await server.app.db.prisma.groupMember.create({ data: { groupId: gid, userId: member.id, status: "member" } });
  return { gid, cn };
}

describe("deleting a group", () => {
  it("every model with scope columns has a registered scope-content removal or is declared not content", () => {
    const registered = new Set(scopeContents().flatMap((content) => content.models));
    const orphaned = scopedModels().filter((model) => !registered.has(model) && !NOT_CONTENT[model]);
    expect(orphaned, "register the area's removal with registerScopeContent (src/common/scope-content.ts)").toEqual([]);
    expect(registered.size).toBeGreaterThan(0);
  });

  it("removes the group, its memberships and every record of every area in its scope, each with its deleted event", async () => {
    const { gid, cn } = await newGroup();
    const other = await newGroup();
    const inScope = (scopeId: number) => ({ scope: "group", scope_id: scopeId });
    for (const scopeId of [gid, other.gid]) {
      for (const [path, body] of [
        ["/wiki", { title: "Group page", pagetext: "text", state: 1, access: 4 }],
        ["/wiki", { title: "Public group page", pagetext: "text", state: 1, access: 0 }],
        ["/blog", { title: "Group entry", content: "text", state: 0, access: 5 }],
      ] as const) {
        const made = await server.rest("POST", path, { token: member.token, body: { ...body, ...inScope(scopeId) } });
        expect(made.status, JSON.stringify(made.body)).toBe(201);
      }
    }

    // A forum in each group: a section, a category, a thread and a reply (the owner manages the group). The
    // posts refer to the category and the category to the section, with cascading foreign keys: the removals
    // must take the posts first, each with its event (src/common/scope-content.ts orders them).
    for (const scopeId of [gid, other.gid]) {
      const section = await server.graphqlText(`mutation($input: CreateForumSectionInput!) { createForumSection(input: $input) { id } }`, { input: { scope: "group", scopeId, alias: "gone", title: "Gone" } }, owner.token);
      expect(section.errors, JSON.stringify(section.errors)).toBeUndefined();
      const category = await server.graphqlText(
        `mutation($input: CreateForumCategoryInput!) { createForumCategory(input: $input) { id } }`,
        { input: { sectionId: Number(section.data.createForumSection.id), alias: "gone", title: "Gone" } },
        owner.token,
      );
      expect(category.errors, JSON.stringify(category.errors)).toBeUndefined();
      const thread = await server.rest("POST", "/forum", { token: member.token, body: { category_id: Number(category.data.createForumCategory.id), ...inScope(scopeId), title: "T", comment: "Text." } });
      expect(thread.status, JSON.stringify(thread.body)).toBe(201);
      const reply = await server.rest("POST", "/forum", { token: member.token, body: { category_id: Number(category.data.createForumCategory.id), ...inScope(scopeId), thread: String(thread.body.id), comment: "Reply." } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    }

    // A webhook endpoint of each group, registered by its manager (a literal public address: nothing resolves it).
    for (const scopeId of [gid, other.gid]) {
      const response = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
        body: JSON.stringify({
          query: `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
          variables: { input: { url: "https://93.184.216.34/hook", eventTypes: ["groups.groupUpdated"], scope: "group", scopeId } },
        }),
      });
      const body = (await response.json()) as { errors?: unknown[] };
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    }

    expect((await server.rest("DELETE", `/groups/${gid}`, { token: member.token })).status).toBe(403);
    expect((await server.rest("DELETE", `/groups/${cn}`, { token: owner.token })).status).toBe(204);
    expect((await server.rest("GET", `/groups/${gid}`, { token: admin.token })).status).toBe(404);

    const sql = sqlClientOf(server.app.db.prisma);
    const left = async (scopeId: number) => {
      const counts: Record<string, number> = {};
      for (const model of scopedModels().filter((candidate) => !NOT_CONTENT[candidate])) {
        const info = modelInfo(server.app.db.prisma, model);
        const [row] = await sql.query<{ rows: number }>(
          Prisma.sql`SELECT count(*)::int AS rows FROM ${Prisma.raw(`"${info.table}"`)} WHERE ${Prisma.raw(`"${info.fields.get("scope")!.column}"`)} = 'group' AND ${Prisma.raw(
            `"${info.fields.get("scopeId")!.column}"`,
          )} = ${scopeId}`,
        );
        counts[model] = row!.rows;
      }
      return counts;
    };
    expect(Object.values(await left(gid)).every((rows) => rows === 0), JSON.stringify(await left(gid))).toBe(true);
    // Its counter rows go with it (issue 32: zero rows stayed for every deleted scope); the other group keeps its own.
    const counters = async (scopeId: number) =>
      (
        await sql.query<{ rows: number }>(
          Prisma.sql`SELECT ((SELECT count(*) FROM list_counts WHERE scope = 'group' AND scope_id = ${scopeId}) + (SELECT count(*) FROM list_count_days WHERE scope = 'group' AND scope_id = ${scopeId}))::int AS rows`,
        )
      )[0]!.rows;
    expect(await counters(gid)).toBe(0);
    expect(await counters(other.gid)).toBeGreaterThan(0);
    // The other group keeps everything.
    expect(await left(other.gid)).toMatchObject({ WikiPage: 2, BlogEntry: 1, WebhookEndpoint: 1, ForumSection: 1, ForumCategory: 1, ForumPost: 2 });
    expect(await server.app.db.prisma.groupMember.count({ where: { groupId: gid } })).toBe(0);

    const events = await server.app.db.prisma.outboxEvent.findMany({ where: { OR: [{ scope: "group", scopeId: gid }, { area: "groups", recordId: gid }] }, orderBy: { id: "asc" } });
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "wiki.pageDeleted")).toHaveLength(2);
    expect(types.filter((type) => type === "blog.entryDeleted")).toHaveLength(1);
    expect(types.filter((type) => type === "forum.postDeleted")).toHaveLength(2);
    expect(types.filter((type) => type === "forumCategories.categoryDeleted")).toHaveLength(1);
    expect(types.filter((type) => type === "forumSections.sectionDeleted")).toHaveLength(1);
    expect(types).toContain("groups.groupDeleted");
  });

  it("a hidden group is 404 to a stranger who tries to delete it, and stays", async () => {
    const { gid } = await newGroup("hidden");
    expect((await server.rest("DELETE", `/groups/${gid}`, { token: stranger.token })).status).toBe(404);
    expect((await server.rest("GET", `/groups/${gid}`, { token: member.token })).status).toBe(200);
  });
});

/**
 * The activity consumer writes entries for events it read earlier (issue 32: a group deleted right after
 * members joined kept entries the consumer wrote after the deletion). Held deterministically between reading
 * the events and inserting their entries: its recipients' accounts are read from `users`, which this test
 * locks (ACCESS EXCLUSIVE) while the consumer runs; the group is deleted and committed while it waits there.
 */
describeOnPostgres("an outbox consumer racing a group's deletion", "a second connection holds the consumer while another transaction deletes the group", () => {
  it("stores no activity entry (nor recipient, nor count) for the group deleted before the entries' insert commits", { timeout: 60_000 }, async () => {
    const { gid } = await newGroup();
    const joiners = await Promise.all([server.user(), server.user(), server.user()]);
    const consumerLock = Prisma.sql`SELECT pg_advisory_lock(hashtext('hubgraph outbox consumer'), hashtext('activity'))`;
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    const locker = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    await locker.connect();
    try {
      await server.app.dispatcher.flush();
      // 1. The consumer is kept from draining (it tries its lock and finds it taken) while the members join.
      await holder.query(consumerLock.text);
      for (const joiner of joiners) {
        const joined = await server.graphqlText(`mutation($group: ID!) { joinGroup(group: $group) { myMembership } }`, { group: String(gid) }, joiner.token);
        expect(joined.errors, JSON.stringify(joined.errors)).toBeUndefined();
        expect(joined.data.joinGroup.myMembership).toBe("MEMBER");
      }
      // The other consumers take the join events now, so only the activity consumer is left to read accounts below.
      await server.app.dispatcher.flush();
      // 2. Accounts locked, the consumer let go: it reads the join events and waits at its recipients' accounts.
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE users IN ACCESS EXCLUSIVE MODE");
      await holder.query("SELECT pg_advisory_unlock(hashtext('hubgraph outbox consumer'), hashtext('activity'))");
      const draining = server.app.dispatcher.flush();
      for (const started = Date.now(); ; ) {
        const { rows } = await holder.query(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM users WHERE id = ANY%'",
        );
        if (rows[0].waiting > 0) break;
        if (Date.now() - started > 20_000) throw new Error("the activity consumer did not reach its recipients' accounts within 20 s");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // 3. The group is deleted and committed while the consumer waits; then it goes on.
      await locker.query("DELETE FROM groups WHERE id = $1", [gid]);
      await locker.query("COMMIT");
      await draining;
      await server.app.dispatcher.flush();
      const sql = sqlClientOf(server.app.db.prisma);
      const [left] = await sql.query<{ entries: number; recipients: number; counts: number }>(
        Prisma.sql`SELECT (SELECT count(*) FROM activity WHERE scope = 'group' AND scope_id = ${gid})::int AS entries,
                          (SELECT count(*) FROM activity_recipients WHERE scope = 'group' AND scope_id = ${gid})::int AS recipients,
                          (SELECT coalesce(sum(rows), 0) FROM list_counts WHERE table_name = 'activity' AND scope = 'group' AND scope_id = ${gid})::int AS counts`,
      );
      expect(left).toEqual({ entries: 0, recipients: 0, counts: 0 });
      // The consumer went on: it is not stuck, and nothing failed.
      const [cursor] = await sql.query<{ failures: number }>(Prisma.sql`SELECT failures FROM outbox_consumers WHERE name = 'activity'`);
      expect(Number(cursor!.failures)).toBe(0);
    } finally {
      await locker.query("ROLLBACK").catch(() => {});
      await holder.end();
      await locker.end();
    }
  });
});

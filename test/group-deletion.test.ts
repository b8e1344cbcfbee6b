import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../src/generated/prisma/client.js";
import { modelInfo } from "../src/common/records.js";
import { sqlClientOf } from "../src/db/sql.js";
import { groupContents } from "../src/groups/content.js";
import { startServer, type TestServer, type TestUser } from "./server.js";

/**
 * Deleting a group removes everything in it (docs/decisions.md, "Deleting a group"): every model with
 * scope columns is either some area's registered group content (src/groups/content.ts) or named here as
 * not content, with the reason. A model added later with scope columns and neither fails the first test,
 * so no area can leave a deleted group's records behind.
 */
const NOT_CONTENT: Record<string, string> = {
  OutboxEvent: "the record of what happened: a deleted group's events stay for their subscribers",
  ListCount: "counters kept by triggers: the group's rows drop to zero as its records go",
  ListVersion: "version stamps of list totals, not records",
  ListCountDay: "per-day counters kept by triggers, not records",
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
  it("every model with scope columns has a registered group-content removal or is declared not content", () => {
    const registered = new Set(groupContents().flatMap((content) => content.models));
    const orphaned = scopedModels().filter((model) => !registered.has(model) && !NOT_CONTENT[model]);
    expect(orphaned, "register the area's removal with registerGroupContent (src/groups/content.ts)").toEqual([]);
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
    // The other group keeps everything.
    expect(await left(other.gid)).toMatchObject({ WikiPage: 2, BlogEntry: 1, WebhookEndpoint: 1 });
    expect(await server.app.db.prisma.groupMember.count({ where: { groupId: gid } })).toBe(0);

    const events = await server.app.db.prisma.outboxEvent.findMany({ where: { OR: [{ scope: "group", scopeId: gid }, { area: "groups", recordId: gid }] }, orderBy: { id: "asc" } });
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "wiki.pageDeleted")).toHaveLength(2);
    expect(types.filter((type) => type === "blog.entryDeleted")).toHaveLength(1);
    expect(types).toContain("groups.groupDeleted");
  });

  it("a hidden group is 404 to a stranger who tries to delete it, and stays", async () => {
    const { gid } = await newGroup("hidden");
    expect((await server.rest("DELETE", `/groups/${gid}`, { token: stranger.token })).status).toBe(404);
    expect((await server.rest("GET", `/groups/${gid}`, { token: member.token })).status).toBe(200);
  });
});

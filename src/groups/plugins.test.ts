import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "graphql";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { startServer, type Cast, type TestServer, type TestUser } from "../../test/server.js";
import { createPluginRecord } from "./plugins.testing.js";

/**
 * Per-group plugin records (issue 17 item 4; docs/decisions.md, "Group plugins"): every registered plugin's
 * five operations through /groups/{group}/<plugin>, by cn and by gidNumber, and what the group path
 * guarantees: the group comes from the path, a record of another group is not there, a PUT cannot move a
 * record out, writing needs membership (managers for announcements), hidden groups are not there for outsiders.
 */
let server: TestServer;
let cast: Cast;
let other: Cast;
let outsider: TestUser;
let cn: string;
let otherCn: string;
let hiddenCn: string;
let hiddenId: number;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("Plugin Home");
  other = await server.cast("Plugin Elsewhere");
  outsider = cast.bob;
  cn = "pluginhome";
  otherCn = "pluginelsewhere";
  const hidden = await server.cast("Plugin Hidden");
  hiddenId = hidden.groupId;
  hiddenCn = "pluginhidden";
  await server.app.db.prisma.group.update({ where: { id: hiddenId }, data: { discoverability: 1 } });
  // The hidden group's manager is the home group's manager too, so one token shows both sides.
  await server.app.db.prisma.groupMember.create({ data: { groupId: hiddenId, userId: cast.manager.id, status: "member", manager: true } });
});

afterAll(() => server?.close());

/** Per plugin: the fields a replace sends, and one it changes. */
const plugins = {
  announcements: { replace: { title: "Changed", content: "Changed text." }, listKey: "announcements", writer: () => cast.manager },
  blog: { replace: { title: "Changed", content: "Changed text.", state: 1 }, listKey: "posts", writer: () => cast.member },
  wiki: { replace: { title: "Changed", pagetext: "Changed text.", state: 1 }, listKey: "pages", writer: () => cast.member },
  forum: { replace: { title: "Changed", comment: "Changed text.", state: 1 }, listKey: "threads", writer: () => cast.member },
} as const;

for (const [plugin, traits] of Object.entries(plugins)) {
  describe(`the ${plugin} plugin`, () => {
    for (const by of ["cn", "gidNumber"] as const) {
      it(`creates, lists, reads, updates and deletes through /groups/{group}/${plugin} by ${by}`, async () => {
        const key = by === "cn" ? cn : String(cast.groupId);
        const writer = traits.writer();
        const created = await server.rest("POST", `/groups/${key}/${plugin}`, { token: writer.token, body: { ...traits.replace, title: `Made by ${by}` } });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toMatchObject({ title: `Made by ${by}`, scope: "group", scope_id: cast.groupId, created_by: writer.id });
        const id = created.body.id as number;

        const listed = await server.rest("GET", `/groups/${key}/${plugin}/list`, { query: { limit: 100 } });
        expect(listed.status).toBe(200);
        expect(listed.body[traits.listKey].map((record: { id: number }) => record.id)).toContain(id);
        expect(listed.body.total).toBe(listed.body[traits.listKey].length);
        if (plugin !== "wiki") expect(listed.body.success).toBe(true);

        const read = await server.rest("GET", `/groups/${key}/${plugin}/${id}`);
        expect(read.status).toBe(200);
        expect(read.body).toMatchObject({ id, title: `Made by ${by}` });

        const updated = await server.rest("PUT", `/groups/${key}/${plugin}/${id}`, { token: writer.token, body: traits.replace });
        expect(updated.status, JSON.stringify(updated.body)).toBe(200);
        expect(updated.body).toMatchObject({ id, title: "Changed", scope: "group", scope_id: cast.groupId });

        const deleted = await server.rest("DELETE", `/groups/${key}/${plugin}/${id}`, { token: writer.token });
        expect(deleted.status).toBe(204);
        expect((await server.rest("GET", `/groups/${key}/${plugin}/${id}`)).status).toBe(404);
      });
    }

    it("answers 404 for a record of another group, on every operation", async () => {
      const elsewhere = await createPluginRecord(server, other.admin.token, otherCn, plugin);
      const read = await server.rest("GET", `/groups/${cn}/${plugin}/${elsewhere}`, { token: cast.admin.token });
      expect(read.status).toBe(404);
      const put = await server.rest("PUT", `/groups/${cn}/${plugin}/${elsewhere}`, { token: cast.admin.token, body: traits.replace });
      expect(put.status).toBe(404);
      expect((await server.rest("DELETE", `/groups/${cn}/${plugin}/${elsewhere}`, { token: cast.admin.token })).status).toBe(404);
      // Still there, unchanged, in its own group.
      const own = await server.rest("GET", `/groups/${otherCn}/${plugin}/${elsewhere}`, { token: other.admin.token });
      expect(own.status).toBe(200);
      expect(own.body.title).not.toBe("Changed");
    });

    it("keeps a record in its group: a PUT or PATCH naming another scope does not move it", async () => {
      const id = await createPluginRecord(server, cast.admin.token, cn, plugin);
      for (const method of ["PUT", "PATCH"]) {
        const moved = await server.rest(method, `/groups/${cn}/${plugin}/${id}`, {
          token: cast.admin.token,
          body: { ...traits.replace, scope: "group", scope_id: other.groupId },
        });
        expect(moved.status, JSON.stringify(moved.body)).toBe(200);
        expect(moved.body).toMatchObject({ scope: "group", scope_id: cast.groupId });
      }
      expect((await server.rest("GET", `/groups/${otherCn}/${plugin}/${id}`, { token: cast.admin.token })).status).toBe(404);
    });

    it("refuses writes by users who are not members with 403, anonymous ones with 401", async () => {
      const refused = await server.rest("POST", `/groups/${cn}/${plugin}`, { token: outsider.token, body: traits.replace });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect((await server.rest("POST", `/groups/${cn}/${plugin}`, { body: traits.replace })).status).toBe(401);
      const id = await createPluginRecord(server, cast.admin.token, cn, plugin);
      expect((await server.rest("PUT", `/groups/${cn}/${plugin}/${id}`, { token: outsider.token, body: traits.replace })).status).toBe(403);
      expect((await server.rest("DELETE", `/groups/${cn}/${plugin}/${id}`, { token: outsider.token })).status).toBe(403);
    });

    it("answers 404 for a hidden group to outsiders and the public, naming the group; its members use it", async () => {
      const id = await createPluginRecord(server, cast.manager.token, hiddenCn, plugin);
      for (const token of [undefined, outsider.token]) {
        for (const path of [`/groups/${hiddenCn}/${plugin}/list`, `/groups/${hiddenId}/${plugin}/${id}`]) {
          const response = await server.rest("GET", path, { token });
          expect(response.status, path).toBe(404);
          expect(response.body.message).toContain("not found");
        }
        const write = await server.rest("POST", `/groups/${hiddenCn}/${plugin}`, { token: token ?? outsider.token, body: traits.replace });
        expect(write.status).toBe(404);
      }
      expect((await server.rest("GET", `/groups/${hiddenCn}/${plugin}/${id}`, { token: cast.manager.token })).status).toBe(200);
    });
  });
}

describe("group plugin paths", () => {
  it("answer 404 for a plugin nobody registered, naming it and the plugins there are", async () => {
    for (const [method, path] of [
      ["POST", `/groups/${cn}/calendar`],
      ["GET", `/groups/${cn}/calendar/list`],
      ["GET", `/groups/${cn}/calendar/1`],
      ["PUT", `/groups/${cn}/calendar/1`],
      ["DELETE", `/groups/${cn}/calendar/1`],
    ] as const) {
      const response = await server.rest(method, path, { token: cast.admin.token });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.message).toMatch(/"calendar" is not one of announcements, blog(, [a-z]+)*, wiki\.$/);
    }
  });

  it("answer 404 for an unknown group and 400 naming id for a key that cannot be one", async () => {
    const unknown = await server.rest("GET", "/groups/nosuchgroup/blog/list");
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Group nosuchgroup not found.");
    const malformed = await server.rest("GET", "/groups/no_such/blog/list");
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([expect.objectContaining({ parameter: "id" })]);
  });

  it("bound the list: limit above the maximum is 100, a negative start is 400", async () => {
    const big = await server.rest("GET", `/groups/${cn}/blog/list`, { query: { limit: 1000 } });
    expect(big.status).toBe(200);
    expect(big.body.posts.length).toBeLessThanOrEqual(100);
    const negative = await server.rest("GET", `/groups/${cn}/blog/list`, { query: { start: -1 } });
    expect(negative.status).toBe(400);
    expect(negative.body.errors[0].parameter).toBe("start");
  });

  it("send the record's ETag on reads and writes, and honour If-Match on writes (the version read inside the group)", async () => {
    const id = await createPluginRecord(server, cast.admin.token, cn, "wiki");
    const read = await server.rest("GET", `/groups/${cn}/wiki/${id}`, { token: cast.admin.token });
    const etag = read.headers.get("etag");
    expect(etag).toMatch(/^"\d+"$/);
    const stale = await server.rest("PATCH", `/groups/${cn}/wiki/${id}`, { token: cast.admin.token, body: { title: "Stale" }, headers: { "if-match": '"1"' } });
    expect(stale.status).toBe(412);
    const fresh = await server.rest("PATCH", `/groups/${cn}/wiki/${id}`, { token: cast.admin.token, body: { title: "Fresh" }, headers: { "if-match": etag! } });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.headers.get("etag")).not.toBe(etag);
  });

  it("list only the group's records", async () => {
    await createPluginRecord(server, other.admin.token, otherCn, "blog", { title: "Other group's entry" });
    const home = await server.rest("GET", `/groups/${cn}/blog/list`, { query: { limit: 100 }, token: cast.admin.token });
    expect(home.body.posts.every((post: { scope: string; scope_id: number }) => post.scope === "group" && post.scope_id === cast.groupId)).toBe(true);
    expect(home.body.posts.map((post: { title: string }) => post.title)).not.toContain("Other group's entry");
  });
});

describe("the GraphQL twins (groupBlogEntries, createGroupBlogEntry, …)", () => {
  const run = <R>(text: string, variables: Record<string, unknown>, token?: string) =>
    server.graphql<R, Record<string, unknown>>(parse(text) as TypedDocumentNode<R, Record<string, unknown>>, variables, token);

  it("serve the same records by group, with no scope argument and no scope in their inputs", async () => {
    const created = await run<{ createGroupAnnouncement: { id: string; scopeId: number } }>(
      "mutation($group: String!, $input: CreateGroupAnnouncementInput!) { createGroupAnnouncement(group: $group, input: $input) { id scopeId } }",
      { group: cn, input: { title: "Twin news", content: "Text." } },
      cast.manager.token,
    );
    expect(created.errors ?? []).toEqual([]);
    expect(created.data!.createGroupAnnouncement.scopeId).toBe(cast.groupId);
    const listed = await run<{ groupAnnouncements: { items: { title: string }[]; total: number } }>(
      "query($group: String!) { groupAnnouncements(group: $group, search: \"twin\") { items { title } total } }",
      { group: String(cast.groupId) },
    );
    expect(listed.data!.groupAnnouncements).toEqual({ items: [{ title: "Twin news" }], total: 1 });

    const smuggled = await run(
      "mutation($group: String!, $id: ID!) { updateGroupBlogEntry(group: $group, id: $id, input: { scope: \"group\", scopeId: 1 }) { id } }",
      { group: cn, id: "1" },
      cast.admin.token,
    );
    expect(smuggled.errors?.[0]?.message).toMatch(/scope/);
    const listArgs = await run("query { groupBlogEntries(group: \"x\", scope: \"site\") { total } }", {});
    expect(listArgs.errors?.[0]?.message).toMatch(/scope/);
  });

  it("name the group argument in their errors", async () => {
    const malformed = await run<unknown>("query { groupWikiPages(group: \"no_such\") { total } }", {});
    expect(malformed.errors?.[0]?.extensions?.errors).toEqual([expect.objectContaining({ parameter: "group" })]);
    const unknown = await run<unknown>("query { groupWikiPage(group: \"nosuchgroup\", id: 1) { id } }", {});
    expect(unknown.errors?.[0]?.message).toBe("Group nosuchgroup not found.");
  });
});

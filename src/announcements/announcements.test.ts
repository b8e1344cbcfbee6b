import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { loadConfig } from "../config.js";
import { createContext } from "../common/context.js";
import { withinScope } from "../common/scopes.js";
import { inWriteTransaction } from "../common/write-path.js";
import { sqlClientOf } from "../db/sql.js";
import { scopeContents } from "../common/scope-content.js";
import { restTimestamp } from "../common/time.js";
import { BLOG } from "../blog/area.js";
import { createPluginRecord } from "../groups/plugins.testing.js";

/**
 * Announcements (docs/decisions.md, "Group plugins"): what is specific to them. The five operations, other
 * groups' records, hidden groups and non-members are src/groups/plugins.test.ts's; the list, access, totals
 * and hot-path rules the shared suites' (src/announcements/testing.ts declares the contract).
 */
let server: TestServer;
let cast: Cast;
let hidden: Cast;
const cn = "newsroom";
const hiddenCn = "secretnews";

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("Newsroom");
  hidden = await server.cast("Secret News");
  await server.app.db.prisma.group.update({ where: { id: hidden.groupId }, data: { discoverability: 1 } });
});

afterAll(() => server?.close());

const post = (token: string | undefined, body: Record<string, unknown>, group = cn) => server.rest("POST", `/groups/${group}/announcements`, { token, body });
const list = (token?: string, group = cn) => server.rest("GET", `/groups/${group}/announcements/list`, { token, query: { limit: 100 } });
const titles = (response: { body: { announcements: { title: string }[] } }) => response.body.announcements.map((item) => item.title);
const HOUR = 3_600_000;

describe("who writes announcements", () => {
  it("the group's managers and administrators; members are refused with 403 naming the rule", async () => {
    expect((await post(cast.manager.token, { title: "By the manager", content: "Text." })).status).toBe(201);
    expect((await post(cast.admin.token, { title: "By an administrator", content: "Text." })).status).toBe(201);
    const byMember = await post(cast.member.token, { title: "By a member", content: "Text." });
    expect(byMember.status).toBe(403);
    expect(byMember.body.message).toBe("Only the group's managers can write its announcements.");
  });

  it("a creator who is no longer a manager can neither change nor delete it (403)", async () => {
    const former = await server.user();
    await server.app.db.prisma.groupMember.create({ data: { groupId: cast.groupId, userId: former.id, status: "member", manager: true } });
    const id = (await post(former.token, { title: "Before the demotion", content: "Text." })).body.id;
    await server.app.db.prisma.groupMember.updateMany({ where: { groupId: cast.groupId, userId: former.id }, data: { manager: false } });
    expect((await server.rest("PUT", `/groups/${cn}/announcements/${id}`, { token: former.token, body: { title: "After", content: "Text." } })).status).toBe(403);
    expect((await server.rest("DELETE", `/groups/${cn}/announcements/${id}`, { token: former.token })).status).toBe(403);
    expect((await server.rest("DELETE", `/groups/${cn}/announcements/${id}`, { token: cast.manager.token })).status).toBe(204);
  });
});

describe("who reads announcements", () => {
  it("members read every level; signed-in users public and registered; the public only public ones of a visible group", async () => {
    for (const [access, title] of [[0, "Public news"], [1, "Registered news"], [2, "Members' news"]] as const) {
      expect((await post(cast.manager.token, { title, content: "Text.", access })).status).toBe(201);
    }
    expect(titles(await list(cast.member.token))).toEqual(expect.arrayContaining(["Public news", "Registered news", "Members' news"]));
    const signedIn = titles(await list(cast.bob.token));
    expect(signedIn).toEqual(expect.arrayContaining(["Public news", "Registered news"]));
    expect(signedIn).not.toContain("Members' news");
    const anonymous = titles(await list());
    expect(anonymous).toContain("Public news");
    expect(anonymous).not.toContain("Registered news");
    expect(anonymous).not.toContain("Members' news");
  });

  it("a hidden group's public announcements are its members' only: 404 to the public and to outsiders", async () => {
    const id = (await post(hidden.manager.token, { title: "Hidden public news", content: "Text.", access: 0 }, hiddenCn)).body.id;
    expect(titles(await list(hidden.member.token, hiddenCn))).toContain("Hidden public news");
    for (const token of [undefined, cast.bob.token]) {
      expect((await list(token, hiddenCn)).status).toBe(404);
      expect((await server.rest("GET", `/groups/${hiddenCn}/announcements/${id}`, { token })).status).toBe(404);
      expect((await server.rest("GET", `/groups/${hidden.groupId}/announcements/${id}`, { token })).status).toBe(404);
    }
  });

  it("outside the publishing window an announcement is shown to its creator and administrators only", async () => {
    const later = restTimestamp(new Date(Date.now() + 24 * HOUR));
    expect((await post(cast.manager.token, { title: "Scheduled news", content: "Text.", publish_up: later })).status).toBe(201);
    expect(titles(await list(cast.manager.token))).toContain("Scheduled news");
    expect(titles(await list(cast.admin.token))).toContain("Scheduled news");
    expect(titles(await list(cast.member.token))).not.toContain("Scheduled news");
  });
});

describe("announcement fields", () => {
  it("lists sticky ones first, then by priority, then the newest; total counts them all", async () => {
    const group = await server.cast("Ordering");
    const token = group.manager.token;
    for (const [title, values] of [
      ["plain old", {}],
      ["important", { priority: 5 }],
      ["sticky low", { sticky: 1, priority: -1 }],
      ["plain new", {}],
      ["sticky high", { sticky: 1, priority: 3 }],
    ] as const) {
      expect((await post(token, { title, content: "Text.", ...values }, "ordering")).status).toBe(201);
    }
    const listed = await list(undefined, "ordering");
    expect(titles(listed)).toEqual(["sticky high", "sticky low", "important", "plain new", "plain old"]);
    expect(listed.body.total).toBe(5);
    // Unsticking one moves it among the others by its priority.
    const stickyHigh = listed.body.announcements[0].id;
    const unstuck = await server.rest("PATCH", `/groups/ordering/announcements/${stickyHigh}`, { token, body: { sticky: 0 } });
    expect(unstuck.status).toBe(200);
    expect(titles(await list(undefined, "ordering"))).toEqual(["sticky low", "important", "sticky high", "plain new", "plain old"]);
  });

  it("answers the record in the REST shape, with the documented defaults", async () => {
    const created = await post(cast.manager.token, { title: "Shape", content: "Body text." });
    expect(created.body).toMatchObject({
      title: "Shape",
      content: "Body text.",
      priority: 0,
      sticky: 0,
      state: 1,
      access: 0,
      publish_down: null,
      scope: "group",
      scope_id: cast.groupId,
      created_by: cast.manager.id,
      url: `/groups/${cast.groupId}/announcements/${created.body.id}`,
    });
    expect(created.body.publish_up).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("refuses bad values with 400 naming the parameter: a window ending before it starts, sticky 2, priority out of range, no title", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ publish_up: "2030-01-02 00:00:00", publish_down: "2030-01-01 00:00:00" }, "publish_down"],
      [{ sticky: 2 }, "sticky"],
      [{ priority: 10_000 }, "priority"],
      [{ title: " " }, "title"],
    ];
    for (const [values, parameter] of cases) {
      const response = await post(cast.manager.token, { title: "Bad", content: "Text.", ...values });
      expect(response.status, JSON.stringify(values)).toBe(400);
      expect(response.body.errors.map((error: { parameter: string }) => error.parameter)).toEqual([parameter]);
    }
    const id = (await post(cast.manager.token, { title: "Window", content: "Text.", publish_up: "2020-01-02 00:00:00" })).body.id;
    const backwards = await server.rest("PATCH", `/groups/${cn}/announcements/${id}`, { token: cast.manager.token, body: { publish_down: "2020-01-01 00:00:00" } });
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors[0].parameter).toBe("publish_down");
  });

  it("the database refuses an announcement outside a group", async () => {
    await expect(
      sqlClientOf(server.app.db.prisma).query(
        Prisma.sql`INSERT INTO announcements (title, content, scope, scope_id, created_by) VALUES ('x', 'y', 'site', 0, ${cast.admin.id})`,
      ),
    ).rejects.toThrow(/announcements_scope_check/);
  });
});

describe("events and group deletion", () => {
  const eventsOf = async (id: number) =>
    (
      await sqlClientOf(server.app.db.prisma).query<{ type: string }>(
        Prisma.sql`SELECT type FROM outbox WHERE area = 'announcements' AND record_id = ${id} ORDER BY xid::text::bigint, id`,
      )
    ).map((row) => row.type);

  it("each write appends its event", async () => {
    const id = (await post(cast.manager.token, { title: "Evented", content: "Text." })).body.id;
    await server.rest("PATCH", `/groups/${cn}/announcements/${id}`, { token: cast.manager.token, body: { priority: 2 } });
    await server.rest("DELETE", `/groups/${cn}/announcements/${id}`, { token: cast.manager.token });
    expect(await eventsOf(id)).toEqual(["announcements.announcementCreated", "announcements.announcementUpdated", "announcements.announcementDeleted"]);
  });

  it("deleting a group removes its announcements, each with its deleted event (src/common/scope-content.ts)", async () => {
    const group = await server.cast("Doomed");
    const ids = [await createPluginRecord(server, group.manager.token, "doomed", "announcements"), await createPluginRecord(server, group.manager.token, "doomed", "announcements")];
    const kept = await createPluginRecord(server, cast.manager.token, cn, "announcements");
    const removal = scopeContents().find((content) => content.area === "announcements")!;
    expect(removal.models).toEqual(["Announcement"]);
    const ctx = createContext(server.app.db.prisma, { user: { id: group.admin.id, username: group.admin.username, isAdmin: true }, via: "token" }, loadConfig());
    expect(await inWriteTransaction(ctx, (tx) => removal.remove(tx, { scope: "group", scopeId: group.groupId }))).toBe(2);
    for (const id of ids) expect((await eventsOf(id)).at(-1)).toBe("announcements.announcementDeleted");
    expect(await server.app.db.prisma.announcement.count({ where: { scopeId: group.groupId } })).toBe(0);
    expect(await server.app.db.prisma.announcement.count({ where: { id: kept } })).toBe(1);
  });
});

describe("the kit's confinement (RequestContext.confinedTo) behind the group paths", () => {
  it("refuses a service's write that would move a record out of the group its path names, with 400 naming scope", async () => {
    const id = await createPluginRecord(server, cast.admin.token, cn, "blog");
    const ctx = createContext(server.app.db.prisma, { user: { id: cast.admin.id, username: cast.admin.username, isAdmin: true }, via: "token" }, loadConfig());
    const moved = withinScope(ctx, { scope: "group", scopeId: cast.groupId }, (confined) => BLOG.updateRecord(confined, id, { scopeId: hidden.groupId }));
    await expect(moved).rejects.toMatchObject({ status: 400, problems: [expect.objectContaining({ parameter: "scope" })] });
    // Confined to another group, the record is not there at all.
    const elsewhere = withinScope(ctx, { scope: "group", scopeId: hidden.groupId }, (confined) => BLOG.updateRecord(confined, id, { title: "Changed" }));
    await expect(elsewhere).rejects.toMatchObject({ status: 404 });
    expect((await server.rest("GET", `/groups/${cn}/blog/${id}`, { token: cast.admin.token })).body).toMatchObject({ scope_id: cast.groupId });
  });
});

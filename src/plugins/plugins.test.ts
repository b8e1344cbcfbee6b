import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RestResult, type TestServer, type TestUser } from "../../test/server.js";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { OUTBOX_START, readCommittedEvents, type StoredEvent } from "../common/outbox.js";
import { GROUP_EVENTS } from "../groups/service.js";
import { deliverToPlugins } from "./deliver.js";
import { definePlugin, pluginFailures } from "./registry.js";
import { hubOf } from "../events/subscriptions.js";
import { subscribeOverSse } from "../../test/sse.js";
import { listStatements } from "../common/paging.js";
import type { Caller } from "../common/list-spec.js";
import { PLUGINS } from "./area.js";

let server: TestServer;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let manager: TestUser;

beforeAll(async () => {
  server = await startServer();
  ({ admin, alice, bob, manager } = await server.cast("plugintesters"));
});

afterAll(() => server?.close());

interface RestPlugin {
  extension_id: number;
  name: string;
  element: string;
  folder: string;
  enabled: number;
  access: number;
  params: string;
  installed: boolean;
  created: string;
  modified: string;
}

let serial = 0;
const element = () => `e${++serial}x${Date.now().toString(36)}`;
const create = (token: string | undefined, body: Record<string, unknown>) => server.rest("POST", "/plugins", { token, body });
const list = (query: Record<string, string | number> = {}, token: string | undefined = admin.token) => server.rest("GET", "/plugins/list", { token, query });
const read = (id: number, token: string | undefined = admin.token) => server.rest("GET", `/plugins/${id}`, { token });
const trigger = (query: Record<string, string>, token?: string, headers?: Record<string, string>) => server.rest("GET", "/plugins/trigger", { token, query, headers });
const firstParameter = (response: RestResult) => (response.body.errors as { parameter: string }[] | undefined)?.[0]?.parameter;
const rowCount = async () => Number((await sqlClientOf(server.app.db.prisma).query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM plugin_records`))[0]!.n);
const eventCount = async () => Number((await sqlClientOf(server.app.db.prisma).query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM outbox WHERE area = 'plugins'`))[0]!.n);

async function plugin(body: Record<string, unknown> = {}): Promise<RestPlugin> {
  const response = await create(admin.token, { name: "A plugin", folder: "testing", element: element(), ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as RestPlugin;
}

const graphql = <T = any>(query: string, variables: Record<string, unknown> = {}, token?: string) => server.graphqlText<T>(query, variables, token);

describe("plugin records", () => {
  it("lists enabled records of access 1 by default, newest first, 25 a page, in {plugins, total, success}", async () => {
    const shipped = await list();
    expect(shipped.status).toBe(200);
    expect(Object.keys(shipped.body).sort()).toEqual(["plugins", "success", "total"]);
    expect(shipped.body.success).toBe(true);
    const folders = (shipped.body.plugins as RestPlugin[]).map((record) => `${record.folder}.${record.element}`);
    expect(folders).toEqual(expect.arrayContaining(["groups.joinnotify", "content.counts"]));
    expect((shipped.body.plugins as RestPlugin[]).every((record) => record.installed && record.enabled === 1)).toBe(true);

    const hidden = [await plugin({ enabled: 0 }), await plugin({ enabled: 1, access: 2 })];
    const made: RestPlugin[] = [];
    for (let index = 0; index < 26; index++) made.push(await plugin({ enabled: 1, folder: "paging" }));
    const page = await list();
    expect(page.body.plugins).toHaveLength(25);
    expect(page.body.total).toBe(26 + (shipped.body.total as number));
    const ids = (page.body.plugins as RestPlugin[]).map((record) => record.extension_id);
    expect(ids).toEqual(made.slice(1).reverse().map((record) => record.extension_id));
    expect(ids).not.toContain(hidden[0]!.extension_id);

    expect((await list({ enabled: 0 })).body.plugins.map((record: RestPlugin) => record.extension_id)).toContain(hidden[0]!.extension_id);
    expect((await list({ access: 2 })).body.plugins.map((record: RestPlugin) => record.extension_id)).toEqual([hidden[1]!.extension_id]);
    const paging = await list({ folder: "paging", sort: "id", sort_Dir: "asc", limit: 5, start: 2 });
    expect(paging.body.total).toBe(26);
    expect(paging.body.plugins.map((record: RestPlugin) => record.extension_id)).toEqual(made.slice(2, 7).map((record) => record.extension_id));
    const searched = await list({ search: made[3]!.element });
    expect(searched.body.plugins.map((record: RestPlugin) => record.extension_id)).toEqual([made[3]!.extension_id]);
    expect(firstParameter(await list({ enabled: 5 }))).toBe("enabled");
    expect(firstParameter(await list({ access: 9 }))).toBe("access");
    expect(firstParameter(await list({ sort: "params" }))).toBe("sort");
  });

  it("creates with the documented defaults (enabled 0, access 1, params {}), and says whether code is installed", async () => {
    const made = await plugin({ folder: "nowhere", element: "nothing" });
    expect(made).toMatchObject({ name: "A plugin", folder: "nowhere", element: "nothing", enabled: 0, access: 1, params: "{}", installed: false });
    const shipped = (await list({ folder: "content" })).body.plugins[0] as RestPlugin;
    expect(shipped).toMatchObject({ element: "counts", installed: true });
    const again = await create(admin.token, { name: "Twice", folder: "nowhere", element: "nothing" });
    expect(again.status).toBe(409);
    expect(firstParameter(again)).toBe("element");
  });

  it("refuses everyone but administrators (401 anonymous, 403 users) on every operation, and changes nothing", async () => {
    const record = await plugin({ enabled: 1 });
    const [rows, events] = [await rowCount(), await eventCount()];
    for (const [token, status] of [[undefined, 401], [alice.token, 403]] as const) {
      expect((await create(token, { name: "x", folder: "f", element: element() })).status).toBe(status);
      expect((await server.rest("GET", "/plugins/list", { token })).status).toBe(status);
      expect((await server.rest("GET", `/plugins/${record.extension_id}`, { token })).status).toBe(status);
      expect((await server.rest("PUT", `/plugins/${record.extension_id}`, { token, body: { name: "Taken over", enabled: 0 } })).status).toBe(status);
      expect((await server.rest("PATCH", `/plugins/${record.extension_id}`, { token, body: { enabled: 0 } })).status).toBe(status);
      expect((await server.rest("DELETE", `/plugins/${record.extension_id}`, { token })).status).toBe(status);
      const viaGraphql = await graphql(`mutation($id: ID!) { updatePluginRecord(id: $id, input: { enabled: 0 }) { id } }`, { id: record.extension_id }, token);
      expect(viaGraphql.errors?.length).toBe(1);
      const listed = await graphql(`{ pluginRecords { total } }`, {}, token);
      expect(listed.errors?.[0]?.extensions?.code).toBe(status === 401 ? "UNAUTHENTICATED" : "FORBIDDEN");
    }
    expect([await rowCount(), await eventCount()]).toEqual([rows, events]);
    expect((await read(record.extension_id)).body).toEqual(record);

    // Nor may they follow a record's changes: as if it did not exist (404), unlike an administrator.
    const follow = `subscription($id: Int!) { pluginRecordChanged(id: $id) { id type } }`;
    const hub = hubOf(server.app.db.prisma);
    for (const token of [undefined, alice.token]) {
      const refused = await subscribeOverSse(server.url, hub, follow, { id: record.extension_id }, token);
      expect(refused.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: "NOT_FOUND" }) })]);
      await refused.close();
    }
    const followed = await subscribeOverSse(server.url, hub, follow, { id: record.extension_id }, admin.token);
    expect(followed.errors).toEqual([]);
    await followed.close();
  });

  it("refuses params that are not JSON with 400 naming params, and writes nothing", async () => {
    const record = await plugin({ params: '{"mode":"quiet"}' });
    expect(record.params).toBe('{"mode":"quiet"}');
    const [rows, events] = [await rowCount(), await eventCount()];
    for (const params of ["{not json", "42", '"text"', "[".repeat(20) + "]".repeat(20)]) {
      const created = await create(admin.token, { name: "Bad", folder: "testing", element: element(), params });
      expect(created.status, params).toBe(400);
      expect(firstParameter(created)).toBe("params");
      const replaced = await server.rest("PUT", `/plugins/${record.extension_id}`, { token: admin.token, body: { params } });
      expect(replaced.status).toBe(400);
      expect(firstParameter(replaced)).toBe("params");
    }
    expect([await rowCount(), await eventCount()]).toEqual([rows, events]);
    expect((await read(record.extension_id)).body.params).toBe('{"mode":"quiet"}');
  });

  it("answers 404 for unknown ids on read, PUT, PATCH and DELETE", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const response = await server.rest(method, "/plugins/999999", { token: admin.token, body: method === "GET" || method === "DELETE" ? undefined : { name: "x" } });
      expect(response.status, method).toBe(404);
      expect(response.body.message).toBe("Plugin 999999 not found.");
    }
  });

  it("PUT replaces: enabled takes its default 0, access (privacy) and fields without defaults keep their values; PATCH changes what it names", async () => {
    const record = await plugin({ enabled: 1, access: 2, params: '{"a":1}' });
    const replaced = await server.rest("PUT", `/plugins/${record.extension_id}`, { token: admin.token, body: { name: "Renamed" } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: "Renamed", folder: record.folder, element: record.element, enabled: 0, access: 2, params: '{"a":1}' });
    const patched = await server.rest("PATCH", `/plugins/${record.extension_id}`, { token: admin.token, body: { enabled: 1 } });
    expect(patched.body).toMatchObject({ name: "Renamed", enabled: 1, access: 2 });
    const opened = await server.rest("PUT", `/plugins/${record.extension_id}`, { token: admin.token, body: { extension_id: record.extension_id, access: 1, enabled: 1 } });
    expect(opened.body).toMatchObject({ access: 1, enabled: 1 });
  });

  it("DELETE /plugins/{id} takes the document's extension_id, answers 204 and the record is gone", async () => {
    const record = await plugin();
    const gone = await server.rest("DELETE", `/plugins/${record.extension_id}`, { token: admin.token });
    expect(gone.status).toBe(204);
    expect((await read(record.extension_id)).status).toBe(404);
    const events = await readCommittedEvents(sqlClientOf(server.app.db.prisma), OUTBOX_START, 10_000);
    expect(events.events.filter((event) => event.recordId === record.extension_id && event.area === "plugins").map((event) => event.type)).toEqual([
      "plugins.pluginCreated",
      "plugins.pluginDeleted",
    ]);
  });

  it("REST and GraphQL agree on a record and a list", async () => {
    const record = await plugin({ enabled: 1, params: '{"k":[1,2]}', folder: "agree" });
    const { data } = await graphql(
      `query($id: ID!) { pluginRecord(id: $id) { id name element folder enabled access params installed } pluginRecords(folder: "agree") { total items { id } } }`,
      { id: record.extension_id },
      admin.token,
    );
    expect(data.pluginRecord).toEqual({
      id: String(record.extension_id),
      name: record.name,
      element: record.element,
      folder: "agree",
      enabled: 1,
      access: 1,
      params: '{"k":[1,2]}',
      installed: false,
    });
    const rest = await list({ folder: "agree" });
    expect(data.pluginRecords).toEqual({ total: rest.body.total, items: rest.body.plugins.map((item: RestPlugin) => ({ id: String(item.extension_id) })) });
  });
});

describe("GET /plugins/trigger", () => {
  let calls = 0;
  beforeAll(async () => {
    definePlugin({
      folder: "testing",
      element: "events",
      name: "Test events",
      triggers: {
        hello: { access: "public", description: "Says hello.", run: async ({ ctx }) => ({ hello: ctx.viewer.user?.username ?? "anonymous" }) },
        members: { access: "registered", description: "Signed-in users only.", run: async () => "members" },
        secret: { access: "administrators", description: "Administrators only.", run: async () => "secret" },
        broken: { access: "public", description: "Throws.", run: async () => { throw new Error("boom"); } },
        slow: { access: "public", description: "Never ends in time.", run: () => new Promise((resolve) => setTimeout(resolve, 5_000, "late")) },
        counted: { access: "public", description: "Counts calls.", run: async () => ++calls },
      },
      listeners: { [GROUP_EVENTS.joinRequested]: async () => void calls++ },
    });
    definePlugin({ folder: "testing", element: "off", name: "Disabled", triggers: { hello: { access: "public", description: "Never fires.", run: async () => "off" } } });
    await plugin({ folder: "testing", element: "events", enabled: 1 });
    await plugin({ folder: "testing", element: "off", enabled: 0 });
  });

  it("fires content.counts (group.event, or event and folder) for anyone, with Cache-Control: no-store", async () => {
    const dotted = await trigger({ event: "content.counts" });
    expect(dotted.status).toBe(200);
    expect(dotted.headers.get("cache-control")).toBe("no-store");
    expect(dotted.body).toEqual([{ wiki: expect.any(Number), blog: expect.any(Number), citations: expect.any(Number), groups: expect.any(Number) }]);
    const before = dotted.body[0].groups as number;
    await server.rest("POST", "/groups", { token: alice.token, body: { cn: `counted${Date.now().toString(36)}`, title: "Counted", join_policy: "open", discoverability: "visible" } });
    const split = await trigger({ event: "counts", folder: "content" }, alice.token);
    expect(split.body).toEqual([{ ...dotted.body[0], groups: before + 1 }]);
  });

  it("answers 404 naming event (listing the declared ones) for events no plugin declares, domain events included; [] for disabled plugins' events; runs nothing", async () => {
    const callsBefore = calls;
    for (const [query, token] of [
      [{ event: "nothing.here" }],
      [{ event: "nothing" }],
      [{ event: "joinRequested", folder: "groups" }, admin.token],
      [{ event: GROUP_EVENTS.joinRequested }, admin.token],
      [{ event: "off.hello" }],
    ] as [Record<string, string>, string?][]) {
      const response = await trigger(query, token);
      expect(response.status, JSON.stringify(query)).toBe(404);
      expect(response.body.errors).toEqual([{ parameter: "event", message: expect.stringContaining("content.counts") }]);
      expect(response.body.message).toContain("testing.hello");
    }
    expect((await trigger({ event: "testing.hello" })).body).toEqual([{ hello: "anonymous" }]); // the disabled one's hello is not among them
    definePlugin({ folder: "testing", element: "offonly", name: "Disabled only", triggers: { lonely: { access: "public", description: "Declared by a disabled plugin only.", run: async () => "lonely" } } });
    await plugin({ folder: "testing", element: "offonly", enabled: 0 });
    expect((await trigger({ event: "testing.lonely" })).body).toEqual([]);
    // The 404 lists what the caller may fire, never which plugins are installed: a disabled plugin's trigger is
    // named to nobody, an administrators-only one to administrators only.
    definePlugin({ folder: "testing", element: "adminonly", name: "Administrators only", triggers: { secretive: { access: "administrators", description: "For administrators.", run: async () => "secret" } } });
    await plugin({ folder: "testing", element: "adminonly", enabled: 1 });
    const anonymousMiss = await trigger({ event: "nothing.here" });
    expect(anonymousMiss.status).toBe(404);
    expect(anonymousMiss.body.message).toContain("testing.hello");
    expect(anonymousMiss.body.message).not.toContain("testing.lonely");
    expect(anonymousMiss.body.message).not.toContain("testing.secretive");
    const adminMiss = await trigger({ event: "nothing.here" }, admin.token);
    expect(adminMiss.body.message).toContain("testing.secretive");
    expect(adminMiss.body.message).not.toContain("testing.lonely");
    expect(calls).toBe(callsBefore);
  });

  it("refuses a missing event with 400 naming event, and a folder that contradicts it naming folder", async () => {
    for (const query of [{}, { event: "" }, { event: "  " }] as Record<string, string>[]) {
      const response = await trigger(query);
      expect(response.status).toBe(400);
      expect(firstParameter(response)).toBe("event");
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
    expect(firstParameter(await trigger({ event: "content.counts", folder: "groups" }))).toBe("folder");
  });

  it("lets anonymous callers fire public events only; registered ones need a user, administrators' ones an administrator", async () => {
    expect((await trigger({ event: "testing.members" })).status).toBe(401);
    expect((await trigger({ event: "testing.members" }, alice.token)).body).toEqual(["members"]);
    expect((await trigger({ event: "testing.secret" })).status).toBe(401);
    expect((await trigger({ event: "testing.secret" }, alice.token)).status).toBe(403);
    expect((await trigger({ event: "testing.secret" }, admin.token)).body).toEqual(["secret"]);
    // The record's access level makes an event stricter: 2 registered.
    const id = (await list({ folder: "testing", search: "events" })).body.plugins.find((record: RestPlugin) => record.element === "events").extension_id;
    await server.rest("PATCH", `/plugins/${id}`, { token: admin.token, body: { access: 2 } });
    expect((await trigger({ event: "testing.hello" })).status).toBe(401);
    expect((await trigger({ event: "testing.hello" }, bob.token)).body).toEqual([{ hello: bob.username }]);
    await server.rest("PATCH", `/plugins/${id}`, { token: admin.token, body: { access: 1 } });
  });

  it("is a mutation in GraphQL, agreeing with REST", async () => {
    const { data } = await graphql(`mutation { triggerPluginEvent(event: "hello", folder: "testing") }`);
    expect(data.triggerPluginEvent).toEqual((await trigger({ event: "testing.hello" })).body);
    const viaGet = await fetch(`${server.url}/graphql?query=${encodeURIComponent('mutation { triggerPluginEvent(event: "testing.counted") }')}`);
    expect(viaGet.status).toBe(405);
  });

  it("needs the X-CSRF-Token header from a caller signed in by cookie, as unsafe methods do", async () => {
    const session = await server.rest("POST", "/session", { body: { username: alice.username, password: alice.password } });
    const cookie = session.headers.getSetCookie().find((line) => line.startsWith("hubgraph_session="))!.split(";")[0]!;
    const callsBefore = calls;
    const refused = await trigger({ event: "testing.counted" }, undefined, { cookie });
    expect(refused.status).toBe(403);
    expect(calls).toBe(callsBefore);
    const wrong = await trigger({ event: "testing.counted" }, undefined, { cookie, "x-csrf-token": "not-it" });
    expect(wrong.status).toBe(403);
    const fired = await trigger({ event: "testing.counted" }, undefined, { cookie, "x-csrf-token": session.body.csrfToken });
    expect(fired.status).toBe(200);
    expect(fired.body).toEqual([callsBefore + 1]);
  });

  it("leaves out handlers that throw or run out of time, logs and counts them in /metrics", async () => {
    const failures = async (reason: string) =>
      (await pluginFailures.get()).values.find((value) => value.labels.plugin === "testing.events" && value.labels.reason === reason)?.value ?? 0;
    const [errors, timeouts] = [await failures("error"), await failures("timeout")];
    const broken = await trigger({ event: "testing.broken" });
    expect(broken.status).toBe(200);
    expect(broken.body).toEqual([]);
    expect(await failures("error")).toBe(errors + 1);
    const started = Date.now();
    const slow = await trigger({ event: "testing.slow" });
    expect(slow.body).toEqual([]);
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(await failures("timeout")).toBe(timeouts + 1);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/hubgraph_plugin_failures_total\{plugin="testing.events",event="testing.broken",reason="error"\} \d+/);
  });
});

describe("deliverToPlugins (the dispatcher's hook)", () => {
  let cursor = OUTBOX_START;
  /** As the dispatcher's plugins consumer delivers: inside a transaction of its own. */
  const deliverInTransaction = (event: StoredEvent, options?: { budgetMs?: number }) =>
    sqlClientOf(server.app.db.prisma).transaction((tx) => deliverToPlugins(tx, event, options));
  /** The events committed since the last call, as the dispatcher would read them. */
  async function committed(): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for (;;) {
      const read = await readCommittedEvents(sqlClientOf(server.app.db.prisma), cursor, 500);
      cursor = read.cursor;
      events.push(...read.events);
      if (read.events.length < 500) return events;
    }
  }
  /**
   * The events committed since the last call, up to one of `type` about `recordId`: on a shared PostgreSQL
   * server another database's open transaction holds the snapshot's xmin back for a moment (docs/events.md,
   * "Reading without skipping"), so a reader may have to wait for it, as the dispatcher would.
   */
  async function committedUntil(type: string, recordId: number): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for (let tries = 0; tries < 100 && !events.some((event) => event.type === type && event.recordId === recordId); tries++) {
      if (tries) await new Promise((resolve) => setTimeout(resolve, 50));
      events.push(...(await committed()));
    }
    return events;
  }
  /** Waits (up to `ms`) until `done`: the dispatcher delivers soon after a write, not within the request. */
  async function eventually(done: () => Promise<boolean>, ms = 5_000) {
    for (const started = Date.now(); !(await done()); ) {
      if (Date.now() - started > ms) throw new Error(`not delivered within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const notifications = (token: string, unread?: boolean) =>
    graphql(`query($unread: Boolean) { notifications(unread: $unread) { total items { id type plugin read payload } } }`, { unread }, token);
  const notificationRows = async () => Number((await sqlClientOf(server.app.db.prisma).query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM notifications`))[0]!.n);

  let group: { gidNumber: number; cn: string };
  beforeAll(async () => {
    const cn = `restricted${Date.now().toString(36)}`;
    const made = await server.rest("POST", "/groups", { token: manager.token, body: { cn, title: "Restricted", join_policy: "restricted", discoverability: "visible" } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    group = { gidNumber: made.body.gidNumber, cn };
    await committed(); // the dispatcher is past everything so far
  });

  it("notifies the group's managers of a join request (through HTTP), once however often the event is delivered", async () => {
    const joined = await graphql(`mutation($group: ID!) { joinGroup(group: $group) { id } }`, { group: group.cn }, alice.token);
    expect(joined.errors).toBeUndefined();
    const events = await committedUntil(GROUP_EVENTS.joinRequested, group.gidNumber);
    const request = events.find((event) => event.type === GROUP_EVENTS.joinRequested && event.recordId === group.gidNumber)!;
    expect(request).toBeDefined();
    // The server's dispatcher delivers it (its write woke it): the notification appears.
    await eventually(async () => (await notifications(manager.token)).data.notifications.total === 1);
    const rows = await notificationRows();
    const inbox = await notifications(manager.token);
    expect(inbox.data.notifications.total).toBe(1);
    expect(inbox.data.notifications.items[0]).toMatchObject({
      type: "groups.joinRequested",
      plugin: "groups.joinnotify",
      read: false,
      payload: expect.objectContaining({ groupId: group.gidNumber, applicantId: alice.id }),
    });
    // Only your own: the applicant and others have none; anonymous callers are refused.
    expect((await notifications(alice.token)).data.notifications.total).toBe(0);
    expect((await notifications(admin.token)).data.notifications.total).toBe(0);
    expect((await graphql(`{ notifications { total } }`)).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");

    // Redelivered (twice, as after a crash): nothing written again.
    await deliverInTransaction(request);
    await deliverInTransaction(request);
    expect(await notificationRows()).toBe(rows);
    expect((await notifications(manager.token)).data.notifications.total).toBe(1);
  });

  it("marks notifications read (only the caller's own)", async () => {
    const id = (await notifications(manager.token)).data.notifications.items[0].id;
    const byOther = await graphql(`mutation($ids: [ID!]) { markNotificationsRead(ids: $ids) }`, { ids: [id] }, alice.token);
    expect(byOther.data.markNotificationsRead).toBe(0);
    expect((await notifications(manager.token, true)).data.notifications.total).toBe(1);
    const mine = await graphql(`mutation($ids: [ID!]) { markNotificationsRead(ids: $ids) }`, { ids: [id] }, manager.token);
    expect(mine.data.markNotificationsRead).toBe(1);
    expect((await notifications(manager.token, true)).data.notifications.total).toBe(0);
    expect((await notifications(manager.token, false)).data.notifications.items[0]).toMatchObject({ id, read: true });
  });

  it("runs no listener of a disabled plugin record", async () => {
    const record = (await list({ folder: "groups" })).body.plugins.find((found: RestPlugin) => found.element === "joinnotify") as RestPlugin;
    await server.rest("PATCH", `/plugins/${record.extension_id}`, { token: admin.token, body: { enabled: 0 } });
    try {
      await graphql(`mutation($group: ID!) { joinGroup(group: $group) { id } }`, { group: group.cn }, bob.token);
      const rows = await notificationRows();
      const events = await committedUntil(GROUP_EVENTS.joinRequested, group.gidNumber);
      expect(events.some((event) => event.type === GROUP_EVENTS.joinRequested && event.subjectId === bob.id)).toBe(true);
      await server.app.dispatcher.flush();
      for (const event of events) await deliverInTransaction(event);
      expect(await notificationRows()).toBe(rows);
    } finally {
      await server.rest("PATCH", `/plugins/${record.extension_id}`, { token: admin.token, body: { enabled: 1 } });
    }
  });

  it("retries the batch when a listener meets a passing database failure (a deadlock), not when it fails on its own", async () => {
    const seen: string[] = [];
    const fields: string[] = [];
    let failOnce = true;
    definePlugin({
      folder: "aac",
      element: "deadlocked",
      name: "Deadlocked once",
      listeners: {
        "wiki.pageCreated": async (event) => {
          seen.push(event.id);
          fields.push(...Object.keys(event));
          if (failOnce) {
            failOnce = false;
            throw Object.assign(new Error("deadlock detected"), { code: "40P01" });
          }
        },
      },
    });
    await plugin({ folder: "aac", element: "deadlocked", enabled: 1 });
    const page = await server.rest("POST", "/wiki", { token: alice.token, body: { title: "Delivered twice to a deadlocked listener", pagetext: "Text.", state: 1 } });
    expect(page.status).toBe(201);
    // The dispatcher's retry comes after its delay (a second or so).
    await eventually(async () => seen.length >= 2, 10_000);
    expect(new Set(seen).size).toBe(1);
    // As subscribers and webhooks receive it: not the server's own reading of who is told.
    expect(fields).toEqual(expect.arrayContaining(["id", "type", "actorId", "recordId"]));
    expect(fields).not.toContain("authorId");
    expect(fields).not.toContain("readerIds");
  });

  it("isolates a listener that throws or overruns its budget: the others still run, and it is counted", async () => {
    definePlugin({ folder: "aaa", element: "thrower", name: "Throws", listeners: { [GROUP_EVENTS.joinRequested]: async () => { throw new Error("listener boom"); } } });
    definePlugin({ folder: "aab", element: "sleeper", name: "Sleeps", listeners: { [GROUP_EVENTS.joinRequested]: (_event, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => setTimeout(resolve, 10))) } });
    await plugin({ folder: "aaa", element: "thrower", enabled: 1 });
    await plugin({ folder: "aab", element: "sleeper", enabled: 1 });
    const count = async (key: string, reason: string) => (await pluginFailures.get()).values.find((value) => value.labels.plugin === key && value.labels.reason === reason)?.value ?? 0;
    const [thrown, slept] = [await count("aaa.thrower", "error"), await count("aab.sleeper", "timeout")];
    const third = await server.user();
    await graphql(`mutation($group: ID!) { joinGroup(group: $group) { id } }`, { group: group.cn }, third.token);
    // The server's dispatcher delivers it, each listener within its budget (2 s).
    await eventually(async () => (await count("aab.sleeper", "timeout")) > slept, 10_000);
    expect(await count("aaa.thrower", "error")).toBe(thrown + 1);
    expect(await count("aab.sleeper", "timeout")).toBe(slept + 1);
    // groups.joinnotify (after both in folder order) still wrote the managers' notification: visible once
    // the batch commits (the timeout is counted before, within the batch).
    const notified = async () =>
      (await notifications(manager.token)).data.notifications.items.some((item: { payload: { applicantId: number } }) => item.payload.applicantId === third.id);
    await eventually(notified, 10_000);
  });
});

describe("records only administrators read, everywhere the rule reaches (docs/policy-design.md, D3)", () => {
  it("their totals count nothing for anyone else, searched or not, and their events say private", async () => {
    const made = await plugin({ name: "Counted for administrators only", enabled: 1 });
    const db = server.app.db.prisma;
    const totalFor = async (user: TestUser | null, args: Record<string, string>) => {
      const caller: Caller = { db, viewer: user ? { user: { id: user.id, username: user.username, isAdmin: user === admin }, via: "token" } : { user: null, via: "anonymous" } };
      const statements = listStatements(PLUGINS.listSpec, caller, { limit: 0, ...args });
      const [row] = await sqlClientOf(db).query<{ total: unknown }>(Prisma.sql`SELECT (${statements.total}) AS total`);
      return statements.readTotal(row!.total);
    };
    for (const args of [{}, { search: "administrators only" }] as Record<string, string>[]) {
      expect(await totalFor(admin, args), JSON.stringify(args)).toBeGreaterThan(0);
      for (const user of [alice, null]) expect(await totalFor(user, args), `${user?.username ?? "anonymous"} ${JSON.stringify(args)}`).toBe(0);
    }
    const [event] = await sqlClientOf(db).query<{ visibility: string }>(Prisma.sql`SELECT visibility FROM outbox WHERE area = 'plugins' AND record_id = ${made.extension_id} ORDER BY id LIMIT 1`);
    expect(event!.visibility).toBe("private");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../../test/server.js";
import {
  TestCreateWikiPageDocument,
  TestDeleteWikiPageDocument,
  TestUpdateWikiPageDocument,
  TestWikiPageDocument,
  TestWikiPagesDocument,
} from "../../test/generated/wiki.js";

const REST_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

let server: TestServer;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let member: TestUser;
let manager: TestUser;
let groupId: number;

beforeAll(async () => {
  server = await startServer();
  ({ admin, alice, bob, member, manager, groupId } = await server.cast("physics"));
});

afterAll(() => server?.close());

const create = (token: string | undefined, body: Record<string, unknown>) => server.rest("POST", "/wiki", { token, body });
const pageCount = () => server.app.db.prisma.wikiPage.count();

describe("POST /api/wiki", () => {
  it("refuses anonymous callers with 401 and WWW-Authenticate", async () => {
    const response = await create(undefined, { title: "Anon", pagetext: "x" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/Bearer/);
    expect(response.body).toMatchObject({ code: 401, message: expect.any(String) });
  });

  it("applies every documented default", async () => {
    const response = await create(alice.token, { title: "Defaults Page", pagetext: "Body text" });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      title: "Defaults Page",
      pagename: "DefaultsPage",
      pagetext: "Body text",
      state: 0,
      access: 0,
      scope: "site",
      scope_id: 0,
      created_by: alice.id,
      params: {},
      revisions: 1,
      version: { version: 1, pagetext: "Body text", summary: "" },
    });
    expect(typeof response.body.id).toBe("number");
    expect(response.body.created).toMatch(REST_TIME);
    expect(Math.abs(Date.parse(`${response.body.created}Z`) - Date.now())).toBeLessThan(60_000);
  });

  it("enforces required parameters, naming each", async () => {
    const before = await pageCount();
    const response = await create(alice.token, { pagename: "Nothing" });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(400);
    expect(response.body.errors.map((error: { parameter: string }) => error.parameter).sort()).toEqual(["pagetext", "title"]);
    expect(await pageCount()).toBe(before);
  });

  it.each([
    ["state", "abc"],
    ["state", 3],
    ["access", 2],
    ["scope_id", "x1"],
    ["scope_id", -1],
    ["created", "yesterday"],
    ["created", "2024-02-30 10:00:00"],
    ["params", "not-an-object"],
    ["params", { a: { b: { c: { d: { e: { f: { g: { h: { i: { j: 1 } } } } } } } } } }],
    ["params", { big: "x".repeat(20_000) }],
    ["created_by", "me"],
    ["pagename", "has spaces"],
  ])("rejects a bad %s (%s) with 400 naming it", async (parameter, value) => {
    const response = await create(alice.token, { title: "Bad input", pagetext: "x", [parameter]: value });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].parameter).toBe(parameter);
  });

  it("derives unique page names and refuses a duplicate explicit one with 409", async () => {
    const first = await create(alice.token, { title: "Same Title", pagetext: "a" });
    const second = await create(alice.token, { title: "Same Title", pagetext: "b" });
    expect(first.body.pagename).toBe("SameTitle");
    expect(second.body.pagename).toBe("SameTitle_2");
    const before = await pageCount();
    const clash = await create(bob.token, { title: "Other", pagename: "SameTitle", pagetext: "c" });
    expect(clash.status).toBe(409);
    expect(clash.body.errors[0].parameter).toBe("pagename");
    expect(await pageCount()).toBe(before);
    const elsewhere = await create(member.token, { title: "Other", pagename: "SameTitle", pagetext: "c", scope: "group", scope_id: groupId });
    expect(elsewhere.status).toBe(201);
  });

  it("reads form bodies, including PHP-style params[...]", async () => {
    const response = await server.rest("POST", "/wiki", {
      token: alice.token,
      form: { title: "Form Page", pagetext: "from a form", state: "1", "params[mode]": "wiki" },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ state: 1, params: { mode: "wiki" } });
  });

  it("lets only administrators name another creator", async () => {
    expect((await create(alice.token, { title: "Ghost", pagetext: "x", created_by: bob.id })).status).toBe(403);
    const byAdmin = await create(admin.token, { title: "Ghost", pagetext: "x", created_by: bob.id, created: "2020-01-02 03:04:05" });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body).toMatchObject({ created_by: bob.id, created: "2020-01-02 03:04:05" });
  });

  it.each([
    ["2024-02-30T10:00:00Z", "30 February, with a zone"],
    ["0000-01-01 00:00:00", "year 0"],
    ["9999-12-31T23:00:00-05:00", "year 10000 once in UTC"],
  ])("refuses created=%s (%s) with 400 naming created, and stores nothing", async (created) => {
    const before = await pageCount();
    const response = await create(alice.token, { title: "Bad time", pagetext: "x", created });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.errors.map((error: { parameter: string }) => error.parameter)).toEqual(["created"]);
    expect(response.body.message).toContain("created");
    expect(await pageCount()).toBe(before);
  });

  it("stores a created timestamp with a zone offset in UTC", async () => {
    const response = await create(alice.token, { title: "Offset time", pagetext: "x", created: "2024-01-01T00:00:00+02:00" });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.created).toBe("2023-12-31 22:00:00");
    const row = await server.app.db.prisma.wikiPage.findUniqueOrThrow({ where: { id: response.body.id } });
    expect(row.created.toISOString()).toBe("2023-12-31T22:00:00.000Z");
  });

  it("lets only group members write in a group scope", async () => {
    expect((await create(alice.token, { title: "G", pagetext: "x", scope: "group", scope_id: groupId })).status).toBe(403);
    expect((await create(member.token, { title: "G", pagetext: "x", scope: "group", scope_id: groupId })).status).toBe(201);
    const missing = await create(member.token, { title: "G", pagetext: "x", scope: "group", scope_id: 987654 });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].parameter).toBe("scope_id");
  });
});

describe("GET /api/wiki/list", () => {
  const scope = { scope: "project", scope_id: 7 };

  beforeAll(async () => {
    await server.app.db.prisma.wikiPage.createMany({
      data: Array.from({ length: 105 }, (_, index) => ({
        title: `Bulk ${String(index).padStart(3, "0")}`,
        pagename: `Bulk${index}`,
        scope: scope.scope,
        scopeId: scope.scope_id,
        state: 1,
        createdById: alice.id,
      })),
    });
  });

  const list = (query: Record<string, string | number>, token?: string) => server.rest("GET", "/wiki/list", { query, token });

  it("defaults to 25 records of the site scope sorted by title ascending, with the full total", async () => {
    const response = await list(scope);
    expect(response.status).toBe(200);
    expect(response.body.pages).toHaveLength(25);
    expect(response.body.total).toBe(105);
    const titles = response.body.pages.map((page: { title: string }) => page.title);
    expect(titles).toEqual([...titles].sort());
    expect(titles[0]).toBe("Bulk 000");
    const site = await list({});
    expect(site.body.pages.every((page: { scope: string; scope_id: number }) => page.scope === "site" && page.scope_id === 0)).toBe(true);
  });

  it("pages with limit and start, clamps to 100 and treats 0 as the maximum", async () => {
    const page = await list({ ...scope, limit: 10, start: 100 });
    expect(page.body.pages).toHaveLength(5);
    expect(page.body.total).toBe(105);
    expect((await list({ ...scope, limit: 0 })).body.pages).toHaveLength(100);
    expect((await list({ ...scope, limit: 500 })).body.pages).toHaveLength(100);
    expect((await list({ ...scope, limit: "5" })).body.pages).toHaveLength(5);
  });

  it.each([
    ["limit", -1],
    ["limit", "many"],
    ["start", -5],
    ["sort", "password"],
    ["sort_Dir", "sideways"],
    ["scope_id", "seven"],
  ])("rejects %s=%s with 400 naming it", async (parameter, value) => {
    const response = await list({ ...scope, [parameter]: value });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].parameter).toBe(parameter);
  });

  it("sorts by a whitelisted column in either direction", async () => {
    const response = await list({ ...scope, sort: "title", sort_Dir: "DESC", limit: 3 });
    expect(response.body.pages.map((page: { title: string }) => page.title)).toEqual(["Bulk 104", "Bulk 103", "Bulk 102"]);
  });

  it("searches title and text, case-insensitively", async () => {
    await create(alice.token, { title: "Quantum notes", pagetext: "all about entanglement", state: 1, ...scope });
    await create(alice.token, { title: "Classical", pagetext: "no QUANTUM here, just Newton", state: 1, ...scope });
    const response = await list({ ...scope, search: "quantum" });
    expect(response.body.total).toBe(2);
    expect((await list({ ...scope, search: "ENTANGLE" })).body.total).toBe(1);
    // LIKE metacharacters are literals: "%" and "_" match only themselves.
    expect((await list({ ...scope, search: "%" })).body.total).toBe(0);
    expect((await list({ ...scope, search: "Bulk_0" })).body.total).toBe(0);
    await create(alice.token, { title: "100% done", pagetext: "x", state: 1, ...scope });
    expect((await list({ ...scope, search: "100%" })).body.total).toBe(1);
  });

  it("filters by access level and state for lists and totals alike", async () => {
    const area = { scope: "project", scope_id: 8 };
    const groupArea = { scope: "group", scope_id: groupId };
    await create(alice.token, { title: "public", pagetext: "x", state: 1, access: 0, ...area });
    await create(alice.token, { title: "registered", pagetext: "x", state: 1, access: 1, ...area });
    await create(alice.token, { title: "private", pagetext: "x", state: 1, access: 4, ...area });
    await create(alice.token, { title: "draft", pagetext: "x", state: 0, access: 0, ...area });
    await create(member.token, { title: "group private", pagetext: "x", state: 1, access: 4, ...groupArea });
    const titles = async (query: Record<string, string | number>, token?: string) => {
      const response = await list(query, token);
      expect(response.body.total).toBe(response.body.pages.length);
      return response.body.pages.map((page: { title: string }) => page.title).sort();
    };
    expect(await titles(area)).toEqual(["public"]);
    expect(await titles(area, bob.token)).toEqual(["public", "registered"]);
    expect(await titles(area, alice.token)).toEqual(["draft", "private", "public", "registered"]);
    expect(await titles(area, admin.token)).toEqual(["draft", "private", "public", "registered"]);
    expect(await titles(groupArea, bob.token)).not.toContain("group private");
    expect(await titles(groupArea, manager.token)).toContain("group private");
  });
});

describe("GET /api/wiki/{id}", () => {
  it("returns the newest approved revision, or version_id's", async () => {
    const created = await create(alice.token, { title: "Versioned", pagetext: "first", state: 1 });
    const id = created.body.id;
    await server.rest("PUT", `/wiki/${id}`, { token: alice.token, body: { title: "Versioned", pagetext: "second", summary: "rewrote", state: 1 } });
    const current = await server.rest("GET", `/wiki/${id}`);
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ pagetext: "second", revisions: 2, version: { version: 2, summary: "rewrote" } });
    const old = await server.rest("GET", `/wiki/${id}`, { query: { version_id: created.body.version.id } });
    expect(old.body).toMatchObject({ pagetext: "first", version: { version: 1 } });
    expect((await server.rest("GET", `/wiki/${id}`, { query: { version_id: 0 } })).body.pagetext).toBe("second");
    const unknown = await server.rest("GET", `/wiki/${id}`, { query: { version_id: 999999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/version_id/);
  });

  it("answers 400 for a non-numeric id and 404 for unknown or invisible pages", async () => {
    const bad = await server.rest("GET", "/wiki/abc");
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].parameter).toBe("id");
    expect((await server.rest("GET", "/wiki/999999")).status).toBe(404);
    const hidden = await create(alice.token, { title: "Secret", pagetext: "x", state: 1, access: 4 });
    expect((await server.rest("GET", `/wiki/${hidden.body.id}`)).status).toBe(404);
    expect((await server.rest("GET", `/wiki/${hidden.body.id}`, { token: bob.token })).status).toBe(404);
    expect((await server.rest("GET", `/wiki/${hidden.body.id}`, { token: alice.token })).status).toBe(200);
    expect((await server.rest("GET", `/wiki/${hidden.body.id}`, { token: admin.token })).status).toBe(200);
    const registered = await create(alice.token, { title: "Members only", pagetext: "x", state: 1, access: 1 });
    expect((await server.rest("GET", `/wiki/${registered.body.id}`)).status).toBe(404);
    expect((await server.rest("GET", `/wiki/${registered.body.id}`, { token: bob.token })).status).toBe(200);
  });

  it("exists in version 1.0 only", async () => {
    const page = await create(alice.token, { title: "V", pagetext: "x", state: 1 });
    expect((await server.rest("GET", `/wiki/${page.body.id}`, { query: { v: "1.0" } })).status).toBe(200);
    const missing = await server.rest("GET", `/wiki/${page.body.id}`, { query: { v: "1.1" } });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/1\.1/);
    expect((await server.rest("GET", `/v1.0/wiki/${page.body.id}`)).headers.get("x-api-version")).toBe("1.0");
    const byHeader = await server.rest("GET", `/wiki/${page.body.id}`, { headers: { accept: "application/vnd.hubzero.v1.0+json" } });
    expect(byHeader.status).toBe(200);
  });
});

describe("PUT /api/wiki/{id}", () => {
  it("adds a revision only when the text changes, and applies the documented defaults", async () => {
    const page = await create(alice.token, { title: "Editable", pagetext: "v1", state: 1, access: 1, scope: "project", scope_id: 3 });
    const id = page.body.id;
    const same = await server.rest("PUT", `/wiki/${id}`, { token: alice.token, body: { title: "Editable 2", pagetext: "v1" } });
    expect(same.status).toBe(200);
    // Omitted optional parameters take their documented defaults; created and created_by are kept.
    expect(same.body).toMatchObject({ title: "Editable 2", revisions: 1, state: 0, access: 0, scope: "site", scope_id: 0, created_by: alice.id, created: page.body.created });
    const changed = await server.rest("PUT", `/wiki/${id}`, { token: alice.token, body: { title: "Editable 2", pagetext: "v2", summary: "typo", state: 1 } });
    expect(changed.body).toMatchObject({ revisions: 2, pagetext: "v2", version: { version: 2, summary: "typo", created_by: alice.id } });
  });

  it("checks authentication, ownership and required parameters", async () => {
    const page = await create(alice.token, { title: "Owned", pagetext: "x", state: 1 });
    const id = page.body.id;
    const body = { title: "Taken over", pagetext: "y" };
    expect((await server.rest("PUT", `/wiki/${id}`, { body })).status).toBe(401);
    expect((await server.rest("PUT", `/wiki/${id}`, { token: bob.token, body })).status).toBe(403);
    expect((await server.rest("PUT", `/wiki/${id}`, { token: admin.token, body: { ...body, state: 1 } })).status).toBe(200);
    const missing = await server.rest("PUT", `/wiki/${id}`, { token: alice.token, body: { pagetext: "z" } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].parameter).toBe("title");
    expect((await server.rest("PUT", "/wiki/999999", { token: admin.token, body })).status).toBe(404);
  });

  it("lets a group manager edit group pages, and leaves a page untouched when the update fails", async () => {
    const page = await create(member.token, { title: "Group page", pagetext: "x", scope: "group", scope_id: groupId, state: 1 });
    const other = await create(member.token, { title: "Group other", pagetext: "x", scope: "group", scope_id: groupId, state: 1 });
    const update = { title: "Managed", pagetext: "managed", scope: "group", scope_id: groupId, state: 1 };
    expect((await server.rest("PUT", `/wiki/${page.body.id}`, { token: manager.token, body: update })).status).toBe(200);
    const clash = await server.rest("PUT", `/wiki/${page.body.id}`, {
      token: manager.token,
      body: { ...update, title: "Renamed", pagetext: "new text", pagename: other.body.pagename },
    });
    expect(clash.status).toBe(409);
    const after = await server.rest("GET", `/wiki/${page.body.id}`, { token: manager.token });
    expect(after.body).toMatchObject({ title: "Managed", pagetext: "managed", revisions: 2 });
  });
});

describe("PUT /api/wiki/{id}: creator, concurrent edits, replacement", () => {
  it("lets a group manager edit a member's page but not claim it; only an administrator changes created_by", async () => {
    const page = await create(member.token, { title: "Member page", pagetext: "by the member", scope: "group", scope_id: groupId, state: 1 });
    expect(page.status).toBe(201);
    const id = page.body.id;
    const body = { title: "Member page", pagetext: "edited by the manager", scope: "group", scope_id: groupId, state: 1 };
    const creator = async () => (await server.app.db.prisma.wikiPage.findUniqueOrThrow({ where: { id } })).createdById;

    const edited = await server.rest("PUT", `/wiki/${id}`, { token: manager.token, body });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({ pagetext: "edited by the manager", created_by: member.id });
    // Sending the stored creator back (a GET-then-PUT round trip) changes nothing and is allowed.
    const roundTrip = await server.rest("PUT", `/wiki/${id}`, { token: manager.token, body: { ...body, created_by: member.id } });
    expect(roundTrip.status, JSON.stringify(roundTrip.body)).toBe(200);
    expect(roundTrip.body.created_by).toBe(member.id);

    const claimed = await server.rest("PUT", `/wiki/${id}`, { token: manager.token, body: { ...body, pagetext: "claimed", created_by: manager.id } });
    expect(claimed.status).toBe(403);
    expect(claimed.body).toMatchObject({ code: 403, message: expect.stringContaining("created_by") });
    const handed = await server.rest("PUT", `/wiki/${id}`, { token: member.token, body: { ...body, pagetext: "handed", created_by: alice.id } });
    expect(handed.status).toBe(403);
    expect(await creator()).toBe(member.id);
    expect((await server.rest("GET", `/wiki/${id}`, { token: member.token })).body.pagetext).toBe("edited by the manager");

    const byAdmin = await server.rest("PUT", `/wiki/${id}`, { token: admin.token, body: { ...body, created_by: bob.id } });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(200);
    expect(byAdmin.body.created_by).toBe(bob.id);
    expect(await creator()).toBe(bob.id);
  });

  // Only PostgreSQL (DATABASE_URL, CI's second pass) runs these transactions side by side; PGlite runs one at a time.
  it("numbers the revisions of concurrent edits of one page 2..6, none lost", async () => {
    const page = await create(alice.token, { title: "Contended", pagetext: "v1", state: 1 });
    const id = page.body.id;
    const texts = [1, 2, 3, 4, 5].map((n) => `concurrent edit ${n}`);
    const responses = await Promise.all(
      texts.map((pagetext) => server.rest("PUT", `/wiki/${id}`, { token: alice.token, body: { title: "Contended", pagetext, state: 1 } })),
    );
    expect(responses.map((response) => response.status), JSON.stringify(responses.map((response) => response.body))).toEqual([200, 200, 200, 200, 200]);
    const revisions = await server.app.db.prisma.wikiRevision.findMany({ where: { pageId: id }, orderBy: { version: "asc" } });
    expect(revisions.map((revision) => revision.version)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(revisions.slice(1).map((revision) => revision.pagetext).sort()).toEqual(texts);
    // The page shows the last committed edit.
    const current = await server.rest("GET", `/wiki/${id}`);
    expect(current.body).toMatchObject({ revisions: 6, version: { version: 6 }, pagetext: revisions[5]!.pagetext });
  });

  it("PUT is a replacement (docs/decisions.md, PUT semantics): title and pagetext alone turn a private group page public in the site scope, while GraphQL's partial update keeps access and scope", async () => {
    const privatePage = { pagetext: "secret", scope: "group", scope_id: groupId, state: 1, access: 4 };
    const viaRest = await create(member.token, { title: "Private via REST", ...privatePage });
    expect(viaRest.body).toMatchObject({ access: 4, scope: "group", scope_id: groupId });
    const replaced = await server.rest("PUT", `/wiki/${viaRest.body.id}`, { token: member.token, body: { title: "Private via REST", pagetext: "still secret?" } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    // Omitted parameters take their documented defaults: clients must send the full record.
    expect(replaced.body).toMatchObject({ access: 0, scope: "site", scope_id: 0, state: 0, pagetext: "still secret?" });
    const stored = await server.app.db.prisma.wikiPage.findUniqueOrThrow({ where: { id: viaRest.body.id } });
    expect(stored).toMatchObject({ access: 0, scope: "site", scopeId: 0, state: 0 });

    const viaGraphql = await create(member.token, { title: "Private via GraphQL", ...privatePage });
    const id = String(viaGraphql.body.id);
    const updated = await server.graphql(TestUpdateWikiPageDocument, { id, input: { title: "Private via GraphQL", pagetext: "still secret" } }, member.token);
    expect(updated.errors).toEqual([]);
    expect(updated.data!.updateWikiPage).toMatchObject({ state: 1, revisionCount: 2 });
    const read = await server.graphql(TestWikiPageDocument, { id }, member.token);
    expect(read.data!.wikiPage).toMatchObject({ access: 4, scope: "group", scopeId: groupId, state: 1, pagetext: "still secret" });
    // …and it stays invisible to outsiders.
    expect((await server.rest("GET", `/wiki/${id}`, { token: bob.token })).status).toBe(404);
  });
});

describe("DELETE /api/wiki/{id}", () => {
  it("lets the creator, a group manager or an administrator delete, with 204 and no body", async () => {
    const page = await create(alice.token, { title: "Doomed", pagetext: "x", state: 1 });
    expect((await server.rest("DELETE", `/wiki/${page.body.id}`)).status).toBe(401);
    expect((await server.rest("DELETE", `/wiki/${page.body.id}`, { token: bob.token })).status).toBe(403);
    const deleted = await server.rest("DELETE", `/wiki/${page.body.id}`, { token: alice.token });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect((await server.rest("GET", `/wiki/${page.body.id}`, { token: admin.token })).status).toBe(404);
    expect(await server.app.db.prisma.wikiRevision.count({ where: { pageId: page.body.id } })).toBe(0);
    expect((await server.rest("DELETE", `/wiki/${page.body.id}`, { token: alice.token })).status).toBe(404);

    const groupPage = await create(member.token, { title: "Group doomed", pagetext: "x", scope: "group", scope_id: groupId });
    expect((await server.rest("DELETE", `/wiki/${groupPage.body.id}`, { token: manager.token })).status).toBe(204);
    const adminCase = await create(bob.token, { title: "Admin doomed", pagetext: "x" });
    expect((await server.rest("DELETE", `/wiki/${adminCase.body.id}`, { token: admin.token })).status).toBe(204);
  });
});

describe("GraphQL parity", () => {
  it("lists the same records with the same total through both surfaces", async () => {
    for (const token of [undefined, bob.token, alice.token, admin.token]) {
      const rest = await server.rest("GET", "/wiki/list", { query: { scope: "project", scope_id: 8, limit: 50 }, token });
      const graphql = await server.graphql(TestWikiPagesDocument, { scope: "project", scopeId: 8, limit: 50 }, token);
      expect(graphql.errors).toEqual([]);
      expect(graphql.data!.wikiPages.total).toBe(rest.body.total);
      expect(graphql.data!.wikiPages.items.map((item) => Number(item.id))).toEqual(rest.body.pages.map((page: { id: number }) => page.id));
    }
  });

  it("reads, creates, updates and deletes with the same rules", async () => {
    const created = await server.graphql(TestCreateWikiPageDocument, { input: { title: "From GraphQL", pagetext: "gql text", state: 1 } }, alice.token);
    expect(created.errors).toEqual([]);
    const id = created.data!.createWikiPage.id;
    const rest = await server.rest("GET", `/wiki/${id}`);
    expect(rest.body).toMatchObject({ id: Number(id), title: "From GraphQL", pagename: "FromGraphQL", pagetext: "gql text", state: 1 });
    const read = await server.graphql(TestWikiPageDocument, { id });
    expect(read.data!.wikiPage).toMatchObject({ title: rest.body.title, pagetext: rest.body.pagetext, revisionCount: rest.body.revisions });

    // GraphQL updates are partial: state stays 1 because it is not sent.
    const updated = await server.graphql(TestUpdateWikiPageDocument, { id, input: { pagetext: "edited" } }, alice.token);
    expect(updated.data!.updateWikiPage).toMatchObject({ state: 1, revisionCount: 2 });

    const denied = await server.graphql(TestUpdateWikiPageDocument, { id, input: { title: "Hijack" } }, bob.token);
    expect(denied.errors[0]!.extensions!.code).toBe("FORBIDDEN");
    const anonymous = await server.graphql(TestDeleteWikiPageDocument, { id });
    expect(anonymous.errors[0]!.extensions!.code).toBe("UNAUTHENTICATED");
    const invalid = await server.graphql(TestCreateWikiPageDocument, { input: { title: "Bad", pagetext: "x", access: 9 } }, alice.token);
    expect(invalid.errors[0]!.extensions).toMatchObject({ code: "BAD_REQUEST", errors: [{ parameter: "access" }] });
    const deleted = await server.graphql(TestDeleteWikiPageDocument, { id }, alice.token);
    expect(deleted.data!.deleteWikiPage).toBe(id);
    expect((await server.graphql(TestWikiPageDocument, { id })).errors[0]!.extensions!.code).toBe("NOT_FOUND");
  });

  it("refuses a created timestamp outside the years 1-9999 as BAD_REQUEST naming created, never an internal error", async () => {
    const before = await pageCount();
    const result = await server.graphql(TestCreateWikiPageDocument, { input: { title: "Year zero", pagetext: "x", created: "0000-01-01T00:00:00Z" } }, alice.token);
    expect(result.data).toBeNull();
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.extensions).toMatchObject({ code: "BAD_REQUEST", errors: [{ parameter: "created" }] });
    expect(await pageCount()).toBe(before);
  });
});

describe("account details on nested users", () => {
  it("shows creators' e-mail and administrator flag only to themselves and to administrators", async () => {
    const page = await create(admin.token, { title: "By the admin", pagetext: "x", state: 1 });
    const ask = async (token?: string) => {
      const response = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query: `{ wikiPage(id: ${page.body.id}) { createdBy { username email admin } } }` }),
      });
      return ((await response.json()) as { data: { wikiPage: { createdBy: { username: string; email: string | null; admin: boolean | null } } } }).data
        .wikiPage.createdBy;
    };
    for (const outsider of [undefined, bob.token]) {
      expect(await ask(outsider)).toEqual({ username: admin.username, email: null, admin: null });
    }
    expect(await ask(admin.token)).toEqual({ username: admin.username, email: `${admin.username}@example.test`, admin: true });
  });
});

describe("SQL statements per list", () => {
  it("stay constant whatever the page size (no N+1 for revision counts and authors)", async () => {
    const authors = [alice, bob, member];
    for (let index = 0; index < 25; index++) {
      const author = authors[index % authors.length]!;
      const page = await create(author.token, { title: `Counted ${index}`, pagetext: "one", state: 1, scope: "project", scope_id: 99 });
      await server.rest("PUT", `/wiki/${page.body.id}`, { token: author.token, body: { title: `Counted ${index}`, pagetext: "two", state: 1, scope: "project", scope_id: 99 } });
    }
    const run = (limit: number) =>
      server.recordQueries(() => server.graphql(TestWikiPagesDocument, { scope: "project", scopeId: 99, limit }, admin.token));
    const small = await run(5);
    const large = await run(25);
    expect(small.result.data!.wikiPages.items).toHaveLength(5);
    expect(large.result.data!.wikiPages.items).toHaveLength(25);
    expect(large.result.data!.wikiPages.items.every((item) => item.revisionCount === 2 && item.createdBy.name)).toBe(true);
    expect(large.queries.length).toBe(small.queries.length);
    expect(large.queries.length).toBeLessThanOrEqual(6);

    const restSmall = await server.recordQueries(() => server.rest("GET", "/wiki/list", { query: { scope: "project", scope_id: 99, limit: 5 }, token: admin.token }));
    const restLarge = await server.recordQueries(() => server.rest("GET", "/wiki/list", { query: { scope: "project", scope_id: 99, limit: 25 }, token: admin.token }));
    expect(restLarge.queries.length).toBe(restSmall.queries.length);
  });
});

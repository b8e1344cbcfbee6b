import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../../test/server.js";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import {
  TestCreateWikiPageDocument,
  TestDeleteWikiPageDocument,
  TestUpdateWikiPageDocument,
  TestWikiPageDocument,
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
});

describe("GET /api/wiki/list", () => {
  // Paging, sort, literal search in titles and access rules: test/contract.test.ts.
  it("searches the text of each page's current revision too", async () => {
    const scope = { scope: "project", scope_id: 7 };
    const list = (search: string) => server.rest("GET", "/wiki/list", { query: { ...scope, search } });
    const page = await create(alice.token, { title: "Quantum notes", pagetext: "all about entanglement", state: 1, ...scope });
    await create(alice.token, { title: "Classical", pagetext: "no QUANTUM here, just Newton", state: 1, ...scope });
    expect((await list("quantum")).body.total).toBe(2);
    expect((await list("ENTANGLE")).body.total).toBe(1);
    // Only the current revision counts: text replaced by a later revision is not found.
    await server.rest("PUT", `/wiki/${page.body.id}`, { token: alice.token, body: { title: "Quantum notes", pagetext: "rewritten", state: 1, ...scope } });
    expect((await list("entangle")).body.total).toBe(0);
    expect((await list("REWRITTEN")).body.total).toBe(1);
  });

  it("finds the current text of pages whose revision another writer set, leaving the text to the database", async () => {
    const scope = { scope: "project", scope_id: 8 };
    const list = (search: string) => server.rest("GET", "/wiki/list", { query: { ...scope, search } });
    const page = await create(alice.token, { title: "Outside writer", pagetext: "before", state: 1, ...scope });
    const sql = sqlClientOf(server.app.db.prisma);
    const [revision] = await sql.query<{ id: number }>(
      Prisma.sql`INSERT INTO wiki_revisions (page_id, version, pagetext, summary, length, created, created_by) VALUES (${page.body.id}, 2, 'Afterwards', '', 10, now(), ${alice.id}) RETURNING id`,
    );
    await sql.query(Prisma.sql`UPDATE wiki_pages SET current_revision_id = ${revision!.id} WHERE id = ${page.body.id}`);
    expect((await list("afterwards")).body.total).toBe(1);
    expect((await list("before")).body.total).toBe(0);
    // A writer that empties the text along with the revision change leaves it to the database too.
    const [third] = await sql.query<{ id: number }>(
      Prisma.sql`INSERT INTO wiki_revisions (page_id, version, pagetext, summary, length, created, created_by) VALUES (${page.body.id}, 3, 'Thereafter', '', 10, now(), ${alice.id}) RETURNING id`,
    );
    await sql.query(Prisma.sql`UPDATE wiki_pages SET current_revision_id = ${third!.id}, search_text = '' WHERE id = ${page.body.id}`);
    expect((await list("thereafter")).body.total).toBe(1);
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
});

describe("PUT /api/wiki/{id}", () => {
  it("adds a revision only when the text changes, and applies the documented defaults", async () => {
    const page = await create(alice.token, { title: "Editable", pagetext: "v1", state: 1, access: 1, scope: "project", scope_id: 3 });
    const id = page.body.id;
    const same = await server.rest("PUT", `/wiki/${id}`, { token: alice.token, body: { title: "Editable 2", pagetext: "v1" } });
    expect(same.status).toBe(200);
    // Omitted optional parameters take their documented defaults, but access and scope, which would widen
    // who may see the page, keep their stored values (PUT never loosens privacy); created and created_by are kept.
    expect(same.body).toMatchObject({ title: "Editable 2", revisions: 1, state: 0, access: 1, scope: "project", scope_id: 3, created_by: alice.id, created: page.body.created });
    const changed = await server.rest("PUT", `/wiki/${id}`, { token: alice.token, body: { title: "Editable 2", pagetext: "v2", summary: "typo", state: 1 } });
    expect(changed.body).toMatchObject({ revisions: 2, pagetext: "v2", version: { version: 2, summary: "typo", created_by: alice.id } });
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

describe("PATCH /api/wiki/{id}", () => {
  it("adds a revision when pagetext is given and differs, none otherwise, and keeps every field it is not given", async () => {
    const page = await create(alice.token, { title: "Patched", pagetext: "v1", state: 1, access: 1, scope: "project", scope_id: 4 });
    const id = page.body.id;
    const renamed = await server.rest("PATCH", `/wiki/${id}`, { token: alice.token, body: { title: "Patched 2", summary: "ignored without text" } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ title: "Patched 2", pagetext: "v1", revisions: 1, state: 1, access: 1, scope: "project", scope_id: 4, version: { version: 1 } });
    const same = await server.rest("PATCH", `/wiki/${id}`, { token: alice.token, body: { pagetext: "v1" } });
    expect(same.body).toMatchObject({ revisions: 1 });
    const rewritten = await server.rest("PATCH", `/wiki/${id}`, { token: alice.token, body: { pagetext: "v2", summary: "rewrote" } });
    expect(rewritten.body).toMatchObject({ title: "Patched 2", pagetext: "v2", revisions: 2, state: 1, access: 1, version: { version: 2, summary: "rewrote" } });
  });

  it("takes form-urlencoded and multipart bodies like PUT", async () => {
    const page = await create(alice.token, { title: "Patched by form", pagetext: "v1", state: 1, access: 1 });
    const form = await fetch(`${server.url}/api/wiki/${page.body.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/x-www-form-urlencoded" },
      body: "title=From%20a%20form",
    });
    expect(form.status).toBe(200);
    expect(await form.json()).toMatchObject({ title: "From a form", access: 1, state: 1 });
    const parts = new FormData();
    parts.set("access", "0");
    const multipart = await fetch(`${server.url}/api/wiki/${page.body.id}`, { method: "PATCH", headers: { authorization: `Bearer ${alice.token}` }, body: parts });
    expect(multipart.status).toBe(200);
    expect(await multipart.json()).toMatchObject({ title: "From a form", access: 0, state: 1 });
  });

  it("is listed in the area's description with no parameter required but the id and no defaults", async () => {
    const described = await server.rest("GET", "/wiki");
    const patch = described.body.tasks.find((task: { method: string }) => task.method === "PATCH");
    expect(patch).toMatchObject({ uri: "/api/wiki/{id}", status: 200, access: "signed-in user" });
    for (const parameter of patch.parameters) {
      expect(parameter.required, parameter.name).toBe(parameter.name === "id");
      expect(parameter.default, parameter.name).toBeUndefined();
    }
  });
});

describe("PUT /api/wiki/{id}: creator, concurrent edits, replacement", () => {

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

  it("PUT is a replacement that never loosens privacy (docs/decisions.md, PUT semantics): title and pagetext alone unpublish a private group page but keep it private in its group, as GraphQL's partial update keeps access and scope", async () => {
    const privatePage = { pagetext: "secret", scope: "group", scope_id: groupId, state: 1, access: 4 };
    const viaRest = await create(member.token, { title: "Private via REST", ...privatePage });
    expect(viaRest.body).toMatchObject({ access: 4, scope: "group", scope_id: groupId });
    const replaced = await server.rest("PUT", `/wiki/${viaRest.body.id}`, { token: member.token, body: { title: "Private via REST", pagetext: "still secret?" } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    // Omitted parameters take their documented defaults, except those that would widen who may see the page.
    expect(replaced.body).toMatchObject({ access: 4, scope: "group", scope_id: groupId, state: 0, pagetext: "still secret?" });
    const stored = await server.app.db.prisma.wikiPage.findUniqueOrThrow({ where: { id: viaRest.body.id } });
    expect(stored).toMatchObject({ access: 4, scope: "group", scopeId: groupId, state: 0 });
    // Sent explicitly, they change as asked.
    const moved = await server.rest("PUT", `/wiki/${viaRest.body.id}`, { token: member.token, body: { title: "Private via REST", pagetext: "public now", access: 0, scope: "site", scope_id: 0, state: 1 } });
    expect(moved.body).toMatchObject({ access: 0, scope: "site", scope_id: 0, state: 1 });

    const viaGraphql = await create(member.token, { title: "Private via GraphQL", ...privatePage });
    const id = String(viaGraphql.body.id);
    const updated = await server.graphql(TestUpdateWikiPageDocument, { id, input: { title: "Private via GraphQL", pagetext: "still secret" } }, member.token);
    expect(updated.errors).toEqual([]);
    expect(updated.data!.updateWikiPage).toMatchObject({ state: 1, revisionCount: 2 });
    const read = await server.graphql(TestWikiPageDocument, { id }, member.token);
    expect(read.data!.wikiPage).toMatchObject({ access: "PRIVATE", scope: "group", scopeId: groupId, state: 1, pagetext: "still secret" });
    // …and it stays invisible to outsiders.
    expect((await server.rest("GET", `/wiki/${id}`, { token: bob.token })).status).toBe(404);
  });
});

describe("DELETE /api/wiki/{id}", () => {
  // Who may delete: test/contract.test.ts. Here: the page's revisions go with it.
  it("deletes the page's revisions with it", async () => {
    const page = await create(alice.token, { title: "Short-lived", pagetext: "one", state: 1 });
    await server.rest("PUT", `/wiki/${page.body.id}`, { token: alice.token, body: { title: "Short-lived", pagetext: "two", state: 1 } });
    const revisions = () => server.app.db.prisma.wikiRevision.count({ where: { pageId: page.body.id } });
    expect(await revisions()).toBe(2);
    expect((await server.rest("DELETE", `/wiki/${page.body.id}`, { token: alice.token })).status).toBe(204);
    expect(await revisions()).toBe(0);
  });
});

describe("GraphQL parity", () => {
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
    const invalid = await server.graphql(TestCreateWikiPageDocument, { input: { title: "Bad", pagetext: "x", access: 9 as never } }, alice.token);
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

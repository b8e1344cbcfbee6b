import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RestResult, type TestServer, type TestUser } from "../../test/server.js";
import {
  TestBlogEntriesDocument,
  TestBlogEntryDocument,
  TestCreateBlogEntryDocument,
  TestDeleteBlogEntryDocument,
  TestUpdateBlogEntryDocument,
} from "../../test/generated/blog.js";
import { restTimestamp } from "../common/time.js";
import { BLOG_ACCESS } from "./area.js";

/** A blog entry as the REST facade renders it. */
interface RestEntry {
  id: number;
  title: string;
  alias: string;
  content: string;
  scope: string;
  scope_id: number;
  created: string;
  created_by: number;
  modified: string;
  state: number;
  access: number;
  allow_comments: number;
  publish_up: string;
  publish_down: string | null;
  hits: number;
  tags: string;
  url: string;
}

const REST_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let server: TestServer;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let member: TestUser;
let manager: TestUser;
let groupId: number;

beforeAll(async () => {
  server = await startServer();
  ({ admin, alice, bob, member, manager, groupId } = await server.cast("astronomy"));
});

afterAll(() => server?.close());

const site = { scope: "site", scope_id: 0 };
const create = (token: string | undefined, body: Record<string, unknown>) => server.rest("POST", "/blog", { token, body });
const read = (id: number, token?: string) => server.rest("GET", `/blog/${id}`, { token });
const list = (query: Record<string, string | number>, token?: string) => server.rest("GET", "/blog/list", { token, query });
const update = (id: number, token: string | undefined, body: Record<string, unknown>) => server.rest("PUT", `/blog/${id}`, { token, body });
const entryCount = () => server.app.db.prisma.blogEntry.count();
const ago = (ms: number) => restTimestamp(new Date(Date.now() - ms));
const ahead = (ms: number) => restTimestamp(new Date(Date.now() + ms));

/** Creates an entry that must succeed and returns it. */
async function entry(token: string, body: Record<string, unknown>): Promise<RestEntry> {
  const response = await create(token, { ...site, content: "Some content.", ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as RestEntry;
}

const posts = (response: RestResult) => response.body.posts as RestEntry[];
const postIds = (response: RestResult) => posts(response).map((post) => post.id);
const firstParameter = (response: RestResult) => (response.body.errors as { parameter: string }[])[0]?.parameter;
const nearNow = (timestamp: string) => Math.abs(Date.parse(`${timestamp.replace(" ", "T")}Z`) - Date.now()) < 60_000;

describe("POST /api/blog", () => {

  it("applies every documented default when only the required parameters are sent", async () => {
    const response = await create(alice.token, { ...site, title: "Defaults Entry", content: "Body text" });
    expect(response.status).toBe(201);
    const body = response.body as RestEntry;
    expect(body).toMatchObject({
      title: "Defaults Entry",
      alias: "defaults-entry",
      content: "Body text",
      scope: "site",
      scope_id: 0,
      created_by: alice.id,
      state: 0,
      access: 0,
      allow_comments: 1,
      publish_down: null,
      hits: 0,
      tags: "",
      url: "/blog/defaults-entry",
    });
    expect(typeof body.id).toBe("number");
    for (const timestamp of [body.created, body.modified, body.publish_up]) {
      expect(timestamp).toMatch(REST_TIME);
      expect(nearNow(timestamp)).toBe(true);
    }
  });

  it("stores every given value and answers with REST field names", async () => {
    const body = await entry(alice.token, {
      title: "  Explicit  ",
      alias: "Explicit-Alias",
      content: "Explicit content",
      created: "2020-01-02 03:04:05",
      state: 1,
      access: 2,
      allow_comments: 0,
      publish_up: "2021-05-06 07:08:09",
      publish_down: "2031-05-06T07:08:09Z",
      tags: "science, news",
    });
    expect(body).toMatchObject({
      title: "Explicit",
      alias: "explicit-alias",
      created: "2020-01-02 03:04:05",
      state: 1,
      access: 2,
      allow_comments: 0,
      publish_up: "2021-05-06 07:08:09",
      publish_down: "2031-05-06 07:08:09",
      tags: "science, news",
    });
    expect(Object.keys(body).sort()).toEqual(
      ["access", "alias", "allow_comments", "content", "created", "created_by", "hits", "id", "modified", "publish_down", "publish_up", "scope", "scope_id", "state", "tags", "title", "url"].sort(),
    );
  });

  it("enforces required parameters, naming each the REST way, and stores nothing", async () => {
    const before = await entryCount();
    const nothing = await create(alice.token, { alias: "nothing" });
    expect(nothing.status).toBe(400);
    expect(nothing.body.code).toBe(400);
    expect((nothing.body.errors as { parameter: string }[]).map((error) => error.parameter).sort()).toEqual(["content", "scope", "scope_id", "title"]);

    const withoutScopeId = await create(alice.token, { scope: "site", title: "T", content: "C" });
    expect(withoutScopeId.status).toBe(400);
    expect(withoutScopeId.body).toEqual({
      message: expect.stringContaining('"scope_id"'),
      code: 400,
      errors: [{ parameter: "scope_id", message: "is required" }],
    });
    expect(await entryCount()).toBe(before);
  });

  it("answers 400 naming the parameter for values of the wrong type or range", async () => {
    const before = await entryCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ scope_id: "abc" }, "scope_id"],
      [{ publish_down: "not a date" }, "publish_down"],
      [{ publish_up: "2024-02-30 10:00:00" }, "publish_up"],
      [{ created: "yesterday" }, "created"],
      [{ state: "published" }, "state"],
      [{ state: 2 }, "state"],
      [{ access: 3 }, "access"],
      [{ access: 4 }, "access"],
      [{ allow_comments: 2 }, "allow_comments"],
      [{ created_by: "me" }, "created_by"],
      [{ scope: "Not A Scope" }, "scope"],
      [{ scope: "anything" }, "scope"],
      [{ title: "   " }, "title"],
      [{ alias: "-leading-hyphen" }, "alias"],
      [{ alias: "has space" }, "alias"],
      [{ tags: `ok, ${"x".repeat(101)}` }, "tags"],
    ];
    for (const [override, parameter] of cases) {
      const response = await create(alice.token, { ...site, title: "Typed", content: "c", ...override });
      expect(response.status, JSON.stringify(override)).toBe(400);
      expect(firstParameter(response), JSON.stringify(override)).toBe(parameter);
      expect(response.body.message).toContain(`"${parameter}"`);
    }
    expect(await entryCount()).toBe(before);
  });

  it("requires publish_down to be after publish_up", async () => {
    const before = await entryCount();
    const equal = await create(alice.token, { ...site, title: "W", content: "c", publish_up: "2030-01-01 00:00:00", publish_down: "2030-01-01 00:00:00" });
    expect(equal.status).toBe(400);
    expect(equal.body.errors).toEqual([{ parameter: "publish_down", message: "must be after publish_up" }]);
    const beforeNow = await create(alice.token, { ...site, title: "W", content: "c", publish_down: ago(HOUR) });
    expect(beforeNow.status).toBe(400);
    expect(firstParameter(beforeNow)).toBe("publish_down");
    expect(await entryCount()).toBe(before);
  });

  it("trims tags, drops empty ones and repeats (case-insensitively)", async () => {
    expect((await entry(alice.token, { title: "Tags one", tags: "a, b ,a" })).tags).toBe("a, b");
    expect((await entry(alice.token, { title: "Tags two", tags: "Physics,, physics , PHYSICS,Chem" })).tags).toBe("Physics, Chem");
  });

  it("derives free aliases, refuses a duplicate explicit alias with 409 and allows it in another scope", async () => {
    const first = await entry(alice.token, { title: "Hello, World!" });
    const second = await entry(bob.token, { title: "hello world" });
    const accented = await entry(bob.token, { title: "Ça va? Très bien" });
    const symbols = await entry(bob.token, { title: "!!!" });
    expect([first.alias, second.alias, accented.alias, symbols.alias]).toEqual(["hello-world", "hello-world-2", "ca-va-tres-bien", "entry"]);

    const before = await entryCount();
    const duplicate = await create(bob.token, { ...site, title: "Other", content: "c", alias: "hello-world" });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ code: 409, message: expect.any(String), errors: [{ parameter: "alias" }] });
    const duplicateByCase = await create(bob.token, { ...site, title: "Other", content: "c", alias: "HELLO-WORLD" });
    expect(duplicateByCase.status).toBe(409);
    expect(await entryCount()).toBe(before);

    const elsewhere = await entry(member.token, { scope: "group", scope_id: groupId, title: "Other", alias: "hello-world" });
    expect(elsewhere).toMatchObject({ alias: "hello-world", scope: "group", scope_id: groupId, url: `/groups/${groupId}/blog/hello-world` });
  });

  it("gives member-scope entries their member's path", async () => {
    const mine = await entry(alice.token, { scope: "member", scope_id: alice.id, title: "Mine", alias: "mine" });
    expect(mine.url).toBe(`/members/${alice.id}/blog/mine`);
  });

  it("reads form-urlencoded bodies", async () => {
    const response = await server.rest("POST", "/blog", {
      token: alice.token,
      form: { scope: "site", scope_id: "0", title: "Form entry", content: "From a form", state: "1", tags: "x,y" },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ title: "Form entry", state: 1, scope_id: 0, tags: "x, y" });
  });

  it("accepts tags as a JSON array or as repeated form keys, answers them as one string, and takes that string back", async () => {
    const fromJson = await entry(alice.token, { title: "Array tags", tags: ["a", " b ", "A", ""] });
    expect(fromJson.tags).toBe("a, b");

    /** A form body with repeated keys, which the harness's `form` (one value per key) cannot send. */
    const postForm = async (pairs: [string, string][]) => {
      const response = await fetch(`${server.url}/api/blog`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(pairs).toString(),
      });
      return { status: response.status, body: (await response.json()) as RestEntry };
    };
    const fields: [string, string][] = [["scope", "site"], ["scope_id", "0"], ["content", "c"]];
    const repeated = await postForm([...fields, ["title", "Repeated tags"], ["tags", "a"], ["tags", "b"]]);
    expect(repeated.status, JSON.stringify(repeated.body)).toBe(201);
    expect(repeated.body.tags).toBe("a, b");
    const bracketed = await postForm([...fields, ["title", "Bracketed tags"], ["tags[]", "a"], ["tags[]", "b"]]);
    expect(bracketed.status, JSON.stringify(bracketed.body)).toBe(201);
    expect(bracketed.body.tags).toBe("a, b");

    // What a client read is what it can send back: the entry keeps the same two tags.
    const sentBack = await update(fromJson.id, alice.token, { title: fromJson.title, content: fromJson.content, tags: fromJson.tags });
    expect(sentBack.status, JSON.stringify(sentBack.body)).toBe(200);
    expect(sentBack.body.tags).toBe("a, b");
    expect((await server.app.db.prisma.blogEntry.findUniqueOrThrow({ where: { id: fromJson.id } })).tags).toEqual(["a", "b"]);

    const notStrings = await create(alice.token, { ...site, title: "Odd tags", content: "c", tags: ["a", { b: 1 }] });
    expect(notStrings.status).toBe(400);
    expect(firstParameter(notStrings)).toBe("tags");
  });
});

describe("GET /api/blog/list", () => {
  const scope = "project"; // scope_id 0; the visibility entries are in project 1
  let byCreated: number[];

  beforeAll(async () => {
    // Titles run opposite to creation time, so title order and the default (created desc) differ.
    const titles = ["Golf", "Foxtrot", "Echo", "Delta", "Charlie", "Bravo", "Alpha"];
    const created: RestEntry[] = [];
    for (const [index, title] of titles.entries()) {
      created.push(
        await entry(admin.token, {
          scope,
          scope_id: 0,
          title,
          content: index === 2 ? "Mentions a NEEDLE inside." : "Plain text.",
          state: 1,
          created: `2021-01-0${index + 1} 12:00:00`,
          publish_up: "2021-01-01 00:00:00",
        }),
      );
    }
    byCreated = created.map((post) => post.id).reverse();
  });

  it("wraps the list as {posts, total, success} sorted by created descending by default", async () => {
    const response = await list({ scope });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["posts", "success", "total"]);
    expect(response.body).toMatchObject({ total: 7, success: true });
    expect(postIds(response)).toEqual(byCreated);
    expect(posts(response)[0]).toMatchObject({ scope, scope_id: 0, title: "Alpha", created: "2021-01-07 12:00:00" });
  });

  it("searches title and content, case-insensitively", async () => {
    const inContent = await list({ scope, search: "needle" });
    expect(posts(inContent).map((post) => post.title)).toEqual(["Echo"]);
    expect(inContent.body.total).toBe(1);
    const inTitle = await list({ scope, search: "ALP" });
    expect(posts(inTitle).map((post) => post.title)).toEqual(["Alpha"]);
    expect((await list({ scope, search: "nothing like this" })).body).toEqual({ posts: [], total: 0, success: true });
    // LIKE metacharacters are literals.
    expect((await list({ scope, search: "%" })).body.total).toBe(0);
    expect((await list({ scope, search: "_" })).body.total).toBe(0);
  });
});

describe("visibility: state, publishing window and access", () => {
  const scope = "project";
  const scopeId = 1;
  const named: Record<string, number> = {};
  let groupPrivate: number;

  beforeAll(async () => {
    const published = { scope, scope_id: scopeId, state: 1 };
    const specs: Record<string, Record<string, unknown>> = {
      access0: { ...published, access: 0 },
      access1: { ...published, access: 1 },
      access2: { ...published, access: 2 },
      access5: { ...published, access: 5 },
      draft: { scope, scope_id: scopeId, state: 0, access: 1 },
      future: { ...published, access: 1, publish_up: ahead(DAY) },
      expired: { ...published, access: 1, publish_up: ago(2 * DAY), publish_down: ago(DAY) },
      closing: { ...published, access: 1, publish_up: ago(DAY), publish_down: ahead(DAY) },
    };
    for (const [title, spec] of Object.entries(specs)) named[title] = (await entry(alice.token, { title, ...spec })).id;
    groupPrivate = (await entry(member.token, { scope: "group", scope_id: groupId, title: "Members only", state: 1, access: 5 })).id;
  });

  const visibleTo = async (token?: string) => {
    const response = await list({ scope, scope_id: scopeId, sort: "title", sort_Dir: "asc" }, token);
    expect(response.body.total).toBe(posts(response).length);
    return posts(response).map((post) => post.title);
  };

  it("lists public, current, published entries to anonymous callers; more to signed-in users", async () => {
    expect(await visibleTo()).toEqual(["access0", "access1", "closing"]);
    expect(await visibleTo(bob.token)).toEqual(["access0", "access1", "access2", "closing"]);
  });

  it("lists everything to the creator and to administrators", async () => {
    const everything = ["access0", "access1", "access2", "access5", "closing", "draft", "expired", "future"];
    expect(await visibleTo(alice.token)).toEqual(everything);
    expect(await visibleTo(admin.token)).toEqual(everything);
  });

  it("answers reads the same way as lists: invisible entries are 404", async () => {
    const readable = async (token?: string) => {
      const visible: string[] = [];
      for (const [title, id] of Object.entries(named)) {
        const response = await read(id, token);
        expect([200, 404]).toContain(response.status);
        if (response.status === 200) visible.push(title);
      }
      return visible.sort();
    };
    expect(await readable()).toEqual(["access0", "access1", "closing"]);
    expect(await readable(bob.token)).toEqual(["access0", "access1", "access2", "closing"]);
    expect(await readable(alice.token)).toEqual(Object.keys(named).sort());
    expect(await readable(admin.token)).toEqual(Object.keys(named).sort());
    const hidden = await read(named.future!, bob.token);
    expect(hidden.body).toEqual({ message: `Blog entry ${named.future} not found.`, code: 404 });
  });

  it("never changes hits on read", async () => {
    await read(named.access0!);
    await read(named.access0!, bob.token);
    expect((await read(named.access0!)).body.hits).toBe(0);
  });
});

describe("GET /api/blog/{id}", () => {
  it("returns the record with REST names and timestamps", async () => {
    const created = await entry(alice.token, { title: "Readable", state: 1, tags: "one" });
    const response = await read(created.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created);
  });
});

describe("PATCH /api/blog/{id}", () => {
  const patch = (id: number, token: string, body: Record<string, unknown>) => server.rest("PATCH", `/blog/${id}`, { token, body });

  it("keeps hits, allow_comments, state and access, which PUT resets to their defaults", async () => {
    const original = await entry(alice.token, { title: "Patched", state: 1, access: 2, allow_comments: 0, tags: "keep" });
    await update(original.id, alice.token, { title: "Patched", content: "c", state: 1, access: 2, allow_comments: 0, hits: 42 });
    const response = await patch(original.id, alice.token, { content: "only the content" });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ title: "Patched", content: "only the content", state: 1, access: 2, allow_comments: 0, hits: 42, tags: "keep" });
  });

  it("clears publish_down with null or an empty value, and refuses null for a field that cannot be cleared", async () => {
    const original = await entry(alice.token, { title: "Window", publish_down: "2032-01-01 00:00:00" });
    expect((await patch(original.id, alice.token, { publish_down: null })).body.publish_down).toBeNull();
    expect((await patch(original.id, alice.token, { publish_down: "2033-01-01 00:00:00" })).body.publish_down).toBe("2033-01-01 00:00:00");
    expect((await patch(original.id, alice.token, { publish_down: "" })).body.publish_down).toBeNull();
    for (const parameter of ["hits", "publish_up", "tags"]) {
      const refused = await patch(original.id, alice.token, { [parameter]: null });
      expect(refused.status, parameter).toBe(400);
      expect(firstParameter(refused)).toBe(parameter);
    }
  });

  it("checks the publishing window against the stored publish_up, as PUT does", async () => {
    const original = await entry(alice.token, { title: "Windowed", publish_up: "2030-01-01 00:00:00" });
    const response = await patch(original.id, alice.token, { publish_down: "2029-01-01 00:00:00" });
    expect(response.status).toBe(400);
    expect(firstParameter(response)).toBe("publish_down");
  });
});

describe("PUT /api/blog/{id}", () => {
  it("applies the documented defaults for omitted parameters but keeps created, publish_up, creator, alias, tags and access (a PUT never widens privacy)", async () => {
    const original = await entry(alice.token, {
      title: "Before",
      alias: "kept-alias",
      state: 1,
      access: 2,
      allow_comments: 0,
      created: "2020-02-02 02:02:02",
      publish_up: "2021-03-03 03:03:03",
      tags: "keep",
    });
    const counted = await update(original.id, alice.token, { title: "Counted", content: "c", state: 1, access: 2, allow_comments: 0, hits: 42 });
    expect(counted.status).toBe(200);
    expect(counted.body).toMatchObject({ hits: 42, state: 1, access: 2, allow_comments: 0 });

    const response = await update(original.id, alice.token, { title: "After", content: "New content" });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: original.id,
      title: "After",
      content: "New content",
      alias: "kept-alias",
      scope: "site",
      scope_id: 0,
      state: 0,
      access: 2,
      allow_comments: 1,
      hits: 0,
      tags: "keep",
      created: "2020-02-02 02:02:02",
      publish_up: "2021-03-03 03:03:03",
      created_by: alice.id,
    });
  });

  it("changes the given fields", async () => {
    const original = await entry(alice.token, { title: "Changing" });
    const response = await update(original.id, alice.token, {
      title: "Changed",
      content: "c2",
      alias: "changed-alias",
      tags: "b, a, b",
      state: 1,
      access: 5,
      hits: 7,
      created: "2019-09-09 09:09:09",
      publish_up: "2022-01-01 00:00:00",
      publish_down: "2032-01-01 00:00:00",
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      alias: "changed-alias",
      tags: "b, a",
      state: 1,
      access: 5,
      hits: 7,
      created: "2019-09-09 09:09:09",
      publish_up: "2022-01-01 00:00:00",
      publish_down: "2032-01-01 00:00:00",
      url: "/blog/changed-alias",
    });
  });

  it("refuses a negative hits count with 400 naming hits", async () => {
    const created = await entry(alice.token, { title: "Counted" });
    const response = await update(created.id, alice.token, { title: "Counted", content: "c", hits: -1 });
    expect(response.status).toBe(400);
    expect(firstParameter(response)).toBe("hits");
  });

  it("checks the publishing window against the stored publish_up", async () => {
    const original = await entry(alice.token, { title: "Windowed", publish_up: "2030-01-01 00:00:00" });
    const response = await update(original.id, alice.token, { title: "Windowed", content: "c", publish_down: "2029-01-01 00:00:00" });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ parameter: "publish_down", message: "must be after publish_up" }]);
  });

  it("moves entries between scopes only where the caller may write and the alias is free, and leaves the entry untouched on failure", async () => {
    const taken = await entry(member.token, { scope: "group", scope_id: groupId, title: "Taken in group" });
    const mover = await entry(member.token, { title: "Taken in group", content: "original" });
    expect(mover.alias).toBe(taken.alias);

    const clash = await update(mover.id, member.token, { title: "Moved", content: "changed", scope: "group", scope_id: groupId });
    expect(clash.status).toBe(409);
    expect(firstParameter(clash)).toBe("alias");
    const notMember = await update((await entry(bob.token, { title: "Bob moves" })).id, bob.token, { title: "x", content: "y", scope: "group", scope_id: groupId });
    expect(notMember.status).toBe(403);
    const explicitClash = await update(mover.id, member.token, { title: "Moved", content: "changed", alias: "hello-world" });
    expect(explicitClash.status).toBe(409);

    expect((await read(mover.id, member.token)).body).toEqual(mover);

    const moved = await update(mover.id, member.token, { title: "Moved", content: "changed", scope: "group", scope_id: groupId, alias: "moved-here" });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ scope: "group", scope_id: groupId, alias: "moved-here", url: `/groups/${groupId}/blog/moved-here` });
  });

  it("clears publish_down with an empty value and keeps it when omitted; GraphQL clears it with null", async () => {
    const end = ahead(DAY);
    const stored = async (id: number) => (await server.app.db.prisma.blogEntry.findUniqueOrThrow({ where: { id } })).publishDown;
    const original = await entry(alice.token, { title: "Ending", state: 1, publish_down: end });
    expect(original.publish_down).toBe(end);

    const kept = await update(original.id, alice.token, { title: "Ending", content: "c", state: 1 });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.publish_down).toBe(end);
    const cleared = await update(original.id, alice.token, { title: "Ending", content: "c", state: 1, publish_down: "" });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.publish_down).toBeNull();
    expect(await stored(original.id)).toBeNull();
    // An empty form value clears it too.
    await update(original.id, alice.token, { title: "Ending", content: "c", state: 1, publish_down: end });
    const fromForm = await server.rest("PUT", `/blog/${original.id}`, { token: alice.token, form: { title: "Ending", content: "c", state: "1", publish_down: "" } });
    expect(fromForm.status, JSON.stringify(fromForm.body)).toBe(200);
    expect(fromForm.body.publish_down).toBeNull();

    const viaGraphql = await entry(alice.token, { title: "Ending in GraphQL", state: 1, publish_down: end });
    const id = String(viaGraphql.id);
    const omitted = await server.graphql(TestUpdateBlogEntryDocument, { id, input: { title: "Still ending" } }, alice.token);
    expect(omitted.errors).toEqual([]);
    expect(restTimestamp((await server.graphql(TestBlogEntryDocument, { id }, alice.token)).data!.blogEntry.publishDown!)).toBe(end);
    const nulled = await server.graphql(TestUpdateBlogEntryDocument, { id, input: { publishDown: null } }, alice.token);
    expect(nulled.errors).toEqual([]);
    expect((await server.graphql(TestBlogEntryDocument, { id }, alice.token)).data!.blogEntry.publishDown).toBeNull();
    expect(await stored(viaGraphql.id)).toBeNull();
  });
});

describe("GraphQL parity", () => {
  it("reads the same entry through both surfaces", async () => {
    const created = await entry(alice.token, { title: "Parity", state: 1, access: 1, tags: "p, q", publish_down: ahead(DAY) });
    const viaRest = (await read(created.id)).body as RestEntry;
    const viaGraphql = await server.graphql(TestBlogEntryDocument, { id: String(created.id) });
    expect(viaGraphql.errors).toEqual([]);
    const record = viaGraphql.data!.blogEntry;
    expect({
      id: Number(record.id),
      title: record.title,
      alias: record.alias,
      content: record.content,
      state: record.state,
      access: BLOG_ACCESS.levels.find((level) => level.graphqlName === record.access)!.value,
      scope: record.scope,
      scope_id: record.scopeId,
      allow_comments: record.allowComments,
      hits: record.hits,
      tags: record.tags.join(", "),
      url: record.url,
      created_by: record.createdById,
      publish_up: restTimestamp(record.publishUp),
      publish_down: record.publishDown ? restTimestamp(record.publishDown) : null,
    }).toEqual({
      id: viaRest.id,
      title: viaRest.title,
      alias: viaRest.alias,
      content: viaRest.content,
      state: viaRest.state,
      access: viaRest.access,
      scope: viaRest.scope,
      scope_id: viaRest.scope_id,
      allow_comments: viaRest.allow_comments,
      hits: viaRest.hits,
      tags: viaRest.tags,
      url: viaRest.url,
      created_by: viaRest.created_by,
      publish_up: viaRest.publish_up,
      publish_down: viaRest.publish_down,
    });
  });

  it("lists the same records with the same total through both surfaces, for each caller", async () => {
    // Anonymous, a signed-in reader, the entries' creator (alice) and an administrator (who sees
    // everything by another rule than the creator) over the "visibility" entries.
    const totals: number[] = [];
    for (const token of [undefined, bob.token, alice.token, admin.token]) {
      const viaRest = await list({ scope: "project", scope_id: 1, sort: "title", sort_Dir: "asc", limit: 3, start: 1 }, token);
      const viaGraphql = await server.graphql(TestBlogEntriesDocument, { scope: "project", scopeId: 1, sort: "title", sortDir: "asc", limit: 3, start: 1 }, token);
      expect(viaGraphql.errors).toEqual([]);
      expect(viaGraphql.data!.blogEntries.items.map((item) => Number(item.id))).toEqual(postIds(viaRest));
      expect(viaGraphql.data!.blogEntries.total).toBe(viaRest.body.total);
      totals.push(viaRest.body.total);
    }
    // The callers really do see different sets (the entries come from the visibility tests above).
    expect(totals).toEqual([3, 4, 8, 8]);
    const defaults = await server.graphql(TestBlogEntriesDocument, {});
    expect(defaults.data!.blogEntries.items.map((item) => Number(item.id))).toEqual(postIds(await list({})));
  });

  it("applies the same rules to writes, naming parameters the GraphQL way", async () => {
    const anonymous = await server.graphql(TestCreateBlogEntryDocument, { input: { scope: "site", scopeId: 0, title: "x", content: "y" } });
    expect(anonymous.errors[0]?.extensions?.code).toBe("UNAUTHENTICATED");

    // An access value outside the enum fails variable coercion, before the service; both name the field.
    const invalid = await server.graphql(TestCreateBlogEntryDocument, { input: { scope: "site", scopeId: -1, title: "x", content: "y" } }, alice.token);
    expect(invalid.errors[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(invalid.errors[0]?.extensions?.errors?.map((problem) => problem.parameter)).toEqual(["scopeId"]);
    const badAccess = await server.graphql(TestCreateBlogEntryDocument, { input: { scope: "site", scopeId: 0, title: "x", content: "y", access: 3 as never } }, alice.token);
    expect(badAccess.errors[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(badAccess.errors[0]?.extensions?.errors?.map((problem) => problem.parameter)).toEqual(["access"]);

    const created = await server.graphql(
      TestCreateBlogEntryDocument,
      { input: { scope: "site", scopeId: 0, title: "From GraphQL", content: "y", tags: ["a", " A ", "b", ""], state: 1 } },
      alice.token,
    );
    expect(created.errors).toEqual([]);
    expect(created.data!.createBlogEntry).toMatchObject({ title: "From GraphQL", alias: "from-graphql", state: 1, access: "NOT_SET", tags: ["a", "b"] });
    const id = created.data!.createBlogEntry.id;

    const duplicate = await server.graphql(TestCreateBlogEntryDocument, { input: { scope: "site", scopeId: 0, title: "x", content: "y", alias: "from-graphql" } }, bob.token);
    expect(duplicate.errors[0]?.extensions?.code).toBe("CONFLICT");

    // GraphQL updates are partial: omitted fields keep their values (REST sends the documented defaults).
    const partial = await server.graphql(TestUpdateBlogEntryDocument, { id, input: { title: "Renamed", hits: 3 } }, alice.token);
    expect(partial.errors).toEqual([]);
    expect(partial.data!.updateBlogEntry).toMatchObject({ title: "Renamed", alias: "from-graphql", content: "y", state: 1, hits: 3 });
    const notOwner = await server.graphql(TestUpdateBlogEntryDocument, { id, input: { title: "Stolen" } }, bob.token);
    expect(notOwner.errors[0]?.extensions?.code).toBe("FORBIDDEN");

    expect((await server.graphql(TestDeleteBlogEntryDocument, { id }, bob.token)).errors[0]?.extensions?.code).toBe("FORBIDDEN");
    const deleted = await server.graphql(TestDeleteBlogEntryDocument, { id }, alice.token);
    expect(deleted.data!.deleteBlogEntry).toBe(id);
    expect((await server.graphql(TestBlogEntryDocument, { id }, alice.token)).errors[0]?.extensions?.code).toBe("NOT_FOUND");
  });
});

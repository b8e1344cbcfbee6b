import { describedAreas } from "../src/auth/api-description.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import SchemaBuilder from "@pothos/core";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { serverAudits, type AuditResult } from "graphql-http";
import type { GraphQLField, GraphQLObjectType } from "graphql";
import { startServer, type TestServer, type TestUser } from "./server.js";
import { schema } from "../src/graphql/schema.js";
import { restOperations } from "../rest-facade/table.js";
import { mustBeGiven } from "../rest-facade/params.js";

let server: TestServer;
let admin: TestUser;
let author: TestUser;

beforeAll(async () => {
  server = await startServer();
  admin = await server.user({ admin: true });
  author = await server.user();
});

afterAll(async () => {
  await server?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Any request, any body; parses JSON answers and keeps the raw text. */
async function call(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: BodyInit; token?: string; base?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(`${init.base ?? server.url}${path}`, { method, headers, body: init.body });
  const text = await response.text();
  const isJson = (response.headers.get("content-type") ?? "").includes("json");
  return { status: response.status, headers: response.headers, text, body: isJson && text ? JSON.parse(text) : null };
}

const JSON_TYPE: Record<string, string> = { "content-type": "application/json" };
const jsonBody = (value: unknown) => JSON.stringify(value);

/** The contract's error body: {"message", "code"} (+ errors[] for input errors), JSON, never a 500. */
function expectError(answer: Answer, status: number): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json; charset=utf-8/);
  expect(typeof answer.body?.message).toBe("string");
  expect(answer.body.message.length).toBeGreaterThan(0);
  expect(answer.body.code).toBe(status);
  if (status === 400) {
    expect(Array.isArray(answer.body.errors)).toBe(true);
    for (const problem of answer.body.errors) {
      expect(typeof problem.parameter).toBe("string");
      expect(typeof problem.message).toBe("string");
    }
  }
  if (status === 401) expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
}

function expectParameterError(answer: Answer, parameter: string): void {
  expectError(answer, 400);
  expect(answer.body.errors.map((problem: { parameter: string }) => problem.parameter)).toContain(parameter);
  expect(answer.body.message).toContain(parameter);
}

let pageCount = 0;
async function createPage(fields: Record<string, unknown> = {}, token = author.token) {
  pageCount += 1;
  const answer = await call("POST", "/api/wiki", {
    token,
    headers: JSON_TYPE,
    body: jsonBody({ title: `Facade page ${pageCount}`, pagetext: `Text of page ${pageCount}.`, state: 1, ...fields }),
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: number; title: string; pagename: string; pagetext: string; state: number; access: number; scope: string; scope_id: number };
}

describe("health", () => {
  it("GET /health is 200 {status: ok}", async () => {
    const answer = await call("GET", "/health");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: "ok" });
  });

  it("GET /ready is 200 while the database answers", async () => {
    const answer = await call("GET", "/ready");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: "ready" });
  });

  it("GET /ready is 503 {status: draining} once a stop has begun, while /health stays 200 (liveness is not readiness)", async () => {
    const dedicated = await startServer();
    try {
      dedicated.app.drain();
      const answer = await call("GET", "/ready", { base: dedicated.url });
      expect([answer.status, answer.body, answer.headers.get("retry-after")]).toEqual([503, { status: "draining" }, "1"]);
      expect((await call("GET", "/health", { base: dedicated.url })).status).toBe(200);
    } finally {
      await dedicated.close();
    }
  });

  it("GET /ready is 503 with a JSON body once the database is gone", async () => {
    const dedicated = await startServer();
    try {
      if (dedicated.kind === "postgresql") {
        // Prisma reconnects on the next query after a disconnect, so on PostgreSQL the test database itself
        // goes too (close() later drops it "IF EXISTS").
        const [row] = await dedicated.app.db.prisma.$queryRaw<{ name: string }[]>`SELECT current_database()::text AS name`;
        await dedicated.app.db.close();
        const { default: pg } = await import("pg");
        const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP DATABASE "${row!.name}" WITH (FORCE)`);
        await admin.end();
      } else {
        await dedicated.app.db.close();
      }
      const answer = await call("GET", "/ready", { base: dedicated.url });
      expect(answer.status, answer.text).toBe(503);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(answer.body).toEqual({ status: expect.any(String) });
      expect(answer.body.status).not.toBe("ready");
      // /health does not look at the database.
      expect((await call("GET", "/health", { base: dedicated.url })).status).toBe(200);
    } finally {
      // close() stops the HTTP server first, then closes the database again, which throws "PGlite is
      // closed" on the embedded database: that error is expected; the HTTP server must be gone either way.
      await dedicated.close().catch((error: unknown) => {
        if (!/closed/i.test(String(error))) throw error;
      });
      await expect(fetch(`${dedicated.url}/health`)).rejects.toThrow();
    }
  });
});

describe("versions", () => {
  it.each([
    ["?v=1.0", "/api/wiki/list?v=1.0", {}],
    ["?v=1", "/api/wiki/list?v=1", {}],
    ["?version=1.0", "/api/wiki/list?version=1.0", {}],
    ["the Accept header", "/api/wiki/list", { accept: "application/vnd.anything.v1.0+json" }],
    ["the Accept header without +json", "/api/wiki/list", { accept: "application/vnd.hubgraph.v1.0" }],
    ["a path prefix", "/api/v1.0/wiki/list", {}],
    ["nothing (the default)", "/api/wiki/list", {}],
  ] as const)("version 1.0 from %s", async (_how, path, headers) => {
    const answer = await call("GET", path, { headers });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("x-api-version")).toBe("1.0");
    expect(Array.isArray(answer.body.pages)).toBe(true);
    expect(typeof answer.body.total).toBe("number");
  });

  it("an operation asked in a version it does not have is 404 naming the version", async () => {
    for (const [path, headers] of [
      ["/api/wiki/list?v=1.1", {}],
      ["/api/wiki/list", { accept: "application/vnd.hubgraph.v1.1+json" }],
      ["/api/v1.1/wiki/list", {}],
      ["/api/v2.0/wiki/7", {}],
      ["/api/v3.0/wiki/7", {}],
    ] as const) {
      const answer = await call("GET", path, { headers });
      expectError(answer, 404);
      expect(answer.body.message).toMatch(/\b(1\.1|2\.0|3\.0)\b/);
      // A version the API has (1.1: citations, activity; 2.0: the forum's user-category links) is named; one it has nowhere (3.0) is not (issue 16).
      expect(answer.headers.get("x-api-version")).toBe(path.includes("3.0") ? null : path.includes("2.0") ? "2.0" : "1.1");
    }
  });

  it("precedence: query, then Accept, then path prefix", async () => {
    const queryOverPath = await call("GET", "/api/v1.1/wiki/list?v=1.0");
    expect(queryOverPath.status, queryOverPath.text).toBe(200);
    expect(queryOverPath.headers.get("x-api-version")).toBe("1.0");

    const queryOverAccept = await call("GET", "/api/wiki/list?version=1.0", { headers: { accept: "application/vnd.x.v1.1+json" } });
    expect(queryOverAccept.status).toBe(200);

    const acceptOverPath = await call("GET", "/api/v1.1/wiki/list", { headers: { accept: "application/vnd.x.v1.0+json" } });
    expect(acceptOverPath.status).toBe(200);

    const pathLoses = await call("GET", "/api/v1.0/wiki/list", { headers: { accept: "application/vnd.x.v1.1+json" } });
    expectError(pathLoses, 404);
  });

  it("a malformed version is 400 naming the parameter", async () => {
    const v = await call("GET", "/api/wiki/list?v=abc");
    expectParameterError(v, "v");
    expect(v.headers.get("x-api-version")).toBeTruthy();
    expectParameterError(await call("GET", "/api/wiki/list?version=one"), "version");
    expectParameterError(await call("GET", "/api/wiki/list?v=1.0&v=1.1"), "v");
  });

  it("a version prefix works on the protocol routes too: sign-in and the token endpoint", async () => {
    const session = await call("POST", "/api/v1.0/session", { headers: JSON_TYPE, body: jsonBody({ username: author.username, password: author.password }) });
    expect(session.status, session.text).toBe(201);
    expect(session.headers.get("x-api-version")).toBe("1.0");
    expect(session.body.user.id).toBe(author.id);
    const cookie = session.headers.getSetCookie().find((line) => line.startsWith("hubgraph_session="))!.split(";")[0]!;
    const current = await call("GET", "/api/v1.0/session", { headers: { cookie } });
    expect(current.status, current.text).toBe(200);
    expect(current.headers.get("x-api-version")).toBe("1.0");

    const token = await call("POST", "/api/v1.0/developer/oauth/token", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "password", username: author.username, password: author.password }).toString(),
    });
    expect(token.status, token.text).toBe(200);
    expect(token.headers.get("x-api-version")).toBe("1.0");
    const me = await call("GET", "/api/v1.0/members/me", { token: token.body.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.id).toBe(author.id);
    // Another method on a versioned protocol route is that route's 405, not the facade's 404.
    expect((await call("GET", "/api/v1.0/developer/oauth/token")).status).toBe(405);
  });

  it("an area is described only in a version it has", async () => {
    for (const path of ["/api/wiki?v=2.0", "/api/v2.0/wiki", "/api/blog?v=1.1"]) {
      const answer = await call("GET", path);
      expectError(answer, 404);
      expect(answer.body.message).toMatch(/\b(2\.0|1\.1)\b/);
    }
    const described = await call("GET", "/api/wiki?v=1.0");
    expect(described.status, described.text).toBe(200);
    expect(described.headers.get("x-api-version")).toBe("1.0");
    expect(described.body).toMatchObject({ component: "wiki", version: "1.0" });
    expect(described.body.tasks.length).toBe(restOperations.filter((operation) => operation.area === "wiki").length);
  });

  it("every /api response carries X-API-Version, errors included", async () => {
    const page = await createPage();
    const answers = await Promise.all([
      call("GET", "/api"),
      call("GET", "/api/wiki"),
      call("GET", `/api/wiki/${page.id}`),
      call("GET", "/api/nothing/here"),
      call("PATCH", `/api/wiki/${page.id}`),
      call("GET", "/api/members/me"),
      call("GET", "/api/members/me", { token: "garbage" }),
      call("POST", "/api/wiki", { token: author.token, headers: { "content-type": "text/plain" }, body: "hello" }),
      call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: "{oops" }),
      call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: jsonBody({}) }),
      call("POST", "/api/developer/oauth/token", { headers: JSON_TYPE, body: jsonBody({ grant_type: "password", username: "x", password: "y" }) }),
      call("GET", "/api/developer/oauth/token"),
      call("GET", "/api/session"),
      call("DELETE", `/api/wiki/${(await createPage()).id}`, { token: author.token }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 404, 401, 401, 401, 415, 400, 400, 400, 405, 401, 204]);
    for (const answer of answers) expect(answer.headers.get("x-api-version"), `${answer.status} ${answer.text}`).toMatch(/^\d+\.\d+$/);
  });
});

describe("routes", () => {
  it("an unknown route is 404 with the contract's body", async () => {
    for (const path of ["/api/nothing/here", "/api/wiki/1/extra/segments", "/nothing-at-all"]) {
      const answer = await call("GET", path);
      expectError(answer, 404);
      expect(Object.keys(answer.body).sort()).toEqual(["code", "message"]);
    }
  });

  it("a malformed percent-encoding in the path is 400 naming path, never a 500", async () => {
    for (const path of ["/api/wiki/%ZZ", "/api/wiki/%E0%A4%A", "/api/blog/%C0", "/api/v1.0/wiki/%ZZ"]) {
      const answer = await call("GET", path);
      expectParameterError(answer, "path");
      expect(answer.body.errors).toEqual([{ parameter: "path", message: expect.any(String) }]);
      expect(answer.headers.get("x-api-version")).toBe("1.0");
    }
    expectParameterError(await call("DELETE", "/api/wiki/%ZZ", { token: author.token }), "path");
    // A well-formed encoding is decoded as usual: %41 is "A", which is not an id.
    expectParameterError(await call("GET", "/api/wiki/%41"), "id");
  });

  it("an unknown area is 404 listing every area (citations, members, developer and session included)", async () => {
    const answer = await call("GET", "/api/nothing-here");
    expectError(answer, 404);
    const listed = /^No API operation at GET \/api\/nothing-here: "nothing-here" is not an area of the API \(areas: ([a-z, -]+)\)\.$/.exec(answer.body.message)?.[1]?.split(", ");
    expect(listed, answer.body.message).toBeDefined();
    expect(listed).toEqual([...listed!].sort());
    // Every area the index describes, and session (whose GET /api/session is the cookie session, so the index leaves it out).
    const indexed = (await call("GET", "/api")).body.areas.map((area: { name: string }) => area.name);
    expect(listed).toEqual(expect.arrayContaining([...indexed, "citations", "members", "developer", "session", "wiki", "groups", "forum", "activity", "plugins", "blog"]));
    // and nothing that is not one: each listed area answers a path below it other than with "not an area".
    for (const area of listed!) expect((await call("GET", `/api/${area}/nothing-here`)).body.message ?? "").not.toMatch(/not an area/);
  });

  it("an unknown record is 404", async () => {
    expectError(await call("GET", "/api/wiki/999999"), 404);
  });

  it("a wrong method is 405 with Allow", async () => {
    const post = await call("POST", "/api/wiki/1");
    expectError(post, 405);
    expect(post.headers.get("allow")!.split(/,\s*/).sort()).toEqual(["DELETE", "GET", "PATCH", "PUT"]);

    const postList = await call("POST", "/api/wiki/list", { token: author.token });
    expectError(postList, 405);
    expect(postList.headers.get("allow")!.split(/,\s*/)).toContain("GET");
    expect(postList.headers.get("allow")!.split(/,\s*/)).not.toContain("POST");

    const deleteMe = await call("DELETE", "/api/members/me", { token: author.token });
    expectError(deleteMe, 405);
    expect(deleteMe.headers.get("allow")).toBe("GET");
  });

  it("GET /api lists the areas", async () => {
    const answer = await call("GET", "/api");
    expect(answer.status).toBe(200);
    // GET /api/session is the session endpoint, not an area description: the index does not offer it.
    const areas = describedAreas(restOperations);
    expect(areas).not.toContain("session");
    expect(answer.body.areas).toEqual(areas.map((name) => ({ name, uri: `/api/${name}` })));
    expect(answer.body.areas).toContainEqual({ name: "wiki", uri: "/api/wiki" });
  });

  it.each(describedAreas(restOperations))(
    "GET /api/%s describes every operation of the area exactly as the facade table has it",
    async (area) => {
      const answer = await call("GET", `/api/${area}`);
      expect(answer.status).toBe(200);
      expect(answer.body.component).toBe(area);
      expect(answer.body.version).toBe("1.0");

      const rows = restOperations.filter((operation) => operation.area === area);
      expect(rows.length).toBeGreaterThan(0);
      const expected = rows.map((row) => ({
        method: row.method,
        uri: `/api${row.path}`,
        versions: row.versions,
        parameters: row.params.map((param) => ({
          name: param.name,
          type: param.type,
          // Required with a documented default: it may be left out (contract, amended), so not required here.
          required: mustBeGiven(param),
          ...(param.default !== undefined ? { default: param.default } : {}),
        })),
      }));
      type Task = { name: unknown; method: string; uri: string; versions: string[]; parameters: Record<string, unknown>[] };
      const tasks = answer.body.tasks as Task[];
      const described = tasks.map((task) => ({
        method: task.method,
        uri: task.uri,
        versions: task.versions,
        parameters: task.parameters.map(({ name, type, required, default: fallback }) => ({
          name,
          type,
          required,
          ...(fallback !== undefined ? { default: fallback } : {}),
        })),
      }));
      expect(described).toEqual(expected);
      for (const task of tasks) {
        expect(typeof task.name).toBe("string");
        for (const parameter of task.parameters) expect(typeof parameter.description).toBe("string");
      }
      if (area !== "wiki") return;
      // Spot checks of the documented defaults.
      const list = tasks.find((task) => task.method === "GET" && task.uri === "/api/wiki/list")!;
      expect(list.parameters).toContainEqual(expect.objectContaining({ name: "limit", type: "integer", required: false, default: 25 }));
      expect(list.parameters).toContainEqual(expect.objectContaining({ name: "sort", default: "title" }));
      const create = tasks.find((task) => task.method === "POST" && task.uri === "/api/wiki")!;
      expect(create.parameters).toContainEqual(expect.objectContaining({ name: "title", type: "string", required: true }));
    },
  );

  it("the area description answers on a versioned path and HEAD", async () => {
    const versioned = await call("GET", "/api/v1.0/wiki");
    expect(versioned.status).toBe(200);
    expect(versioned.body.component).toBe("wiki");
    const head = await call("HEAD", "/api/wiki/list");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });
});

describe("parameters of another version, and parameters no version reads (contract: Parameters)", () => {
  it("a parameter of another version of the operation is 400 naming it and the version that has it", async () => {
    const answer = await call("GET", "/api/v1.0/activity/list?start_date=2026-01-01&limit=5");
    expectParameterError(answer, "start_date");
    expect(answer.body.errors).toEqual([{ parameter: "start_date", message: expect.stringMatching(/^is a parameter of version 1\.1 of GET \/api\/activity\/list, not of version 1\.0: .*\?v=1\.1/) }]);
    // In its own version it filters, as before.
    expect((await call("GET", "/api/v1.1/activity/list?start_date=2026-01-01&limit=5")).status).toBe(200);
  });

  it("other names are ignored and listed in X-Ignored-Parameters (a misspelling shows there), never an error", async () => {
    const answer = await call("GET", "/api/wiki/list?sortDir=desc&limit=2&utm_source=mail&v=1.0");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("x-ignored-parameters")).toBe("sortDir, utm_source");
    // Read names, their other names and the version selectors are not listed; nothing is, when nothing is ignored.
    expect((await call("GET", "/api/wiki/list?sort_Dir=desc&version=1.0")).headers.get("x-ignored-parameters")).toBeNull();
    // In a body too, and on an error answer of the operation.
    const body = JSON.stringify({ title: "", pagetext: "x", colour: "blue" });
    const refused = await call("POST", "/api/wiki", { token: author.token, headers: { "content-type": "application/json" }, body });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("x-ignored-parameters")).toBe("colour");
    // A name that is no plain token is percent-encoded.
    expect((await call("GET", "/api/wiki/list?a%20b=1")).headers.get("x-ignored-parameters")).toBe("a%20b");
  });
});

describe("anonymous writes", () => {
  it("are 401 before any parameter is checked (a stranger is not told how to shape a write)", async () => {
    const answer = await call("POST", "/api/groups", { headers: { "content-type": "application/x-www-form-urlencoded" }, body: "cn=Not%20Valid!" });
    expectError(answer, 401);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("are 401 whatever the body: not valid JSON, text not well-formed, of a type no parser reads, too large; a signed-in caller hears what is wrong", async () => {
    const cases: [string, Record<string, string>, number][] = [
      ['{"cn": "broken', JSON_TYPE, 400],
      ['{"cn": "\\ud800", "title": "t"}', JSON_TYPE, 400],
      ['{"\\ud800": 1, "cn": "fine", "title": "t"}', JSON_TYPE, 400],
      ["<group/>", { "content-type": "application/xml" }, 415],
      [JSON.stringify({ cn: "big", title: "x".repeat(2_000_000) }), JSON_TYPE, 413],
    ];
    for (const [body, headers, signedIn] of cases) {
      const anonymous = await call("POST", "/api/groups", { headers, body });
      expectError(anonymous, 401);
      expect(anonymous.body.errors, body.slice(0, 40)).toBeUndefined();
      expect((await call("POST", "/api/groups", { headers, body, token: author.token })).status, body.slice(0, 40)).toBe(signedIn);
    }
  });

  it("except POST /members with REGISTRATION=open, which anyone may call", async () => {
    const open = await startServer({ registration: "open" });
    try {
      const answer = await call("POST", "/api/members", { base: open.url, headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "x" }) });
      expectParameterError(answer, "email");
    } finally {
      await open.close();
    }
  });
});

describe("parameters", () => {
  let titles: string[];
  beforeAll(async () => {
    titles = [];
    for (let i = 0; i < 7; i += 1) titles.push((await createPage({ title: `Coerce ${i}`, pagetext: "coercion fixture" })).title);
  });

  it("integers accept numeric strings (limit=5 pages the list, total counts every match)", async () => {
    const answer = await call("GET", "/api/wiki/list?limit=5&search=coercion%20fixture");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.pages).toHaveLength(5);
    expect(answer.body.total).toBe(7);
    const next = await call("GET", "/api/wiki/list?limit=5&start=5&search=coercion%20fixture");
    expect(next.body.pages).toHaveLength(2);
    expect(next.body.total).toBe(7);
    const all = await call("GET", "/api/wiki/list?limit=0&search=coercion%20fixture");
    expect(all.body.pages.map((page: { title: string }) => page.title)).toEqual(titles);
  });

  it.each([
    ["limit", "abc"],
    ["limit", "-1"],
    ["limit", "1.5"],
    ["start", "-3"],
    ["start", "x"],
    ["scope_id", "twelve"],
    ["limit", "99999999999"],
  ])("%s=%s is 400 naming the parameter", async (name, value) => {
    expectParameterError(await call("GET", `/api/wiki/list?${name}=${encodeURIComponent(value)}`), name);
  });

  it("an id in the path must be an integer", async () => {
    expectParameterError(await call("GET", "/api/wiki/abc"), "id");
  });

  it("integers from strings in JSON and form bodies", async () => {
    const fromJson = await createPage({ state: "1", access: "1" });
    expect(fromJson).toMatchObject({ state: 1, access: 1 });
    const fromForm = await call("POST", "/api/wiki", {
      token: author.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ title: "Form integers", pagetext: "x", state: "1", access: "4", scope_id: "0" }).toString(),
    });
    expect(fromForm.status, fromForm.text).toBe(201);
    expect(fromForm.body).toMatchObject({ state: 1, access: 4, scope_id: 0 });
    expectParameterError(await call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: jsonBody({ title: "t", pagetext: "p", state: "published" }) }), "state");
  });

  it("booleans accept true/false, 1/0 and yes/no (members' admin flag)", async () => {
    let n = 0;
    const create = (flag: string) => {
      n += 1;
      const username = `bool${n}_${Date.now().toString(36)}`;
      return call("POST", "/api/members", {
        token: admin.token,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username, email: `${username}@example.test`, password: "long-enough-password", name: "Bool", admin: flag }).toString(),
      });
    };
    for (const [raw, value] of [["true", true], ["yes", true], ["1", true], ["false", false], ["no", false], ["0", false]] as const) {
      const answer = await create(raw);
      expect(answer.status, `${raw}: ${answer.text}`).toBe(201);
      expect(answer.body.admin).toBe(value);
    }
    expectParameterError(await create("maybe"), "admin");
  });

  it("documented defaults are applied and required parameters enforced", async () => {
    const minimal = await call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: jsonBody({ title: "Minimal page", pagetext: "x" }) });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({ state: 0, access: 0, scope: "site", scope_id: 0, created_by: author.id, params: {} });
    // pagename: derived from the title when absent (docs/decisions.md): the title's words run together
    // with initial capitals, so "Minimal page" becomes MinimalPage.
    expect(minimal.body.pagename).toBe("MinimalPage");

    const missing = await call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: jsonBody({}) });
    expectError(missing, 400);
    expect(missing.body.errors.map((problem: { parameter: string }) => problem.parameter).sort()).toEqual(["pagetext", "title"]);
  });

  it("the path beats the body, and the body beats the query", async () => {
    const target = await createPage({ title: "Path target" });
    const other = await createPage({ title: "Bystander" });
    const answer = await call("PUT", `/api/wiki/${target.id}?id=${other.id}&title=Query%20title&summary=from%20the%20query`, {
      token: author.token,
      headers: JSON_TYPE,
      body: jsonBody({ id: other.id, title: "Body title", pagetext: "Changed text" }),
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(target.id);
    expect(answer.body.title).toBe("Body title");
    expect(answer.body.pagetext).toBe("Changed text");
    // A parameter only in the query is still read.
    expect(answer.body.version.summary).toBe("from the query");
    const bystander = await call("GET", `/api/wiki/${other.id}`);
    expect(bystander.body.title).toBe("Bystander");
  });
});

describe("bodies", () => {
  it("JSON, form-urlencoded and multipart/form-data all create a page", async () => {
    const fromJson = await call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: jsonBody({ title: "Body JSON", pagetext: "j" }) });
    expect(fromJson.status, fromJson.text).toBe(201);
    expect(fromJson.body.title).toBe("Body JSON");

    const fromForm = await call("POST", "/api/wiki", {
      token: author.token,
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body: new URLSearchParams({ title: "Body form", pagetext: "f", "params[mode]": "wiki" }).toString(),
    });
    expect(fromForm.status, fromForm.text).toBe(201);
    expect(fromForm.body).toMatchObject({ title: "Body form", params: { mode: "wiki" } });

    const form = new FormData();
    form.set("title", "Body multipart");
    form.set("pagetext", "m");
    form.set("state", "1");
    const fromMultipart = await call("POST", "/api/wiki", { token: author.token, body: form });
    expect(fromMultipart.status, fromMultipart.text).toBe(201);
    expect(fromMultipart.body).toMatchObject({ title: "Body multipart", pagetext: "m", state: 1 });
  });

  it("a multipart body with a file part is 400 naming the body, and nothing is stored", async () => {
    const form = new FormData();
    form.set("title", "With a file");
    form.set("pagetext", "f");
    form.set("upload", new Blob(["file content"], { type: "text/plain" }), "notes.txt");
    const answer = await call("POST", "/api/wiki", { token: author.token, body: form });
    expectError(answer, 400);
    expect(answer.body.errors).toEqual([{ parameter: "body", message: expect.any(String) }]);
    expect(await server.app.db.prisma.wikiPage.count({ where: { title: "With a file" } })).toBe(0);
  });

  it("answers JSON with charset utf-8", async () => {
    const answer = await call("GET", "/api/wiki/list");
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("an unsupported body type is 415", async () => {
    for (const type of ["text/plain", "application/xml", "application/octet-stream"]) {
      const answer = await call("POST", "/api/wiki", { token: author.token, headers: { "content-type": type }, body: "title=x&pagetext=y" });
      expectError(answer, 415);
    }
  });

  it("malformed JSON is 400 naming the body", async () => {
    for (const text of ["{oops", '{"title": "x",}', "", "null"]) {
      const answer = await call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: text });
      expectError(answer, 400);
      if (text === "{oops" || text.endsWith(",}")) expect(answer.body.errors[0].parameter).toBe("body");
    }
  });

  it("odd bodies never cause a 500", async () => {
    const bodies: [string, string][] = [
      ["application/json", "[1,2,3]"],
      ["application/json", '"just a string"'],
      ["application/json", JSON.stringify({ title: { nested: true }, pagetext: ["a", "b"] })],
      ["application/json", JSON.stringify({ title: "x", pagetext: "y", params: "not json" })],
      ["application/json", JSON.stringify({ title: "x", pagetext: "y", created: "yesterday" })],
      ["application/json", JSON.stringify({ title: "x", pagetext: "y", scope: "group", scope_id: 424242 })],
      ["application/json", JSON.stringify({ title: "x".repeat(300), pagetext: "y" })],
      ["application/json", JSON.stringify({ title: "x", pagetext: "y", created_by: 2147483647 })],
      ["application/x-www-form-urlencoded", "title[a]=1&pagetext=y"],
      ["application/x-www-form-urlencoded", "title=a&title=b&pagetext=y"],
      ["application/json; charset=utf-16", JSON.stringify({ title: "x", pagetext: "y" })],
      ["multipart/form-data; boundary=nothing", "garbage"],
    ];
    for (const [type, body] of bodies) {
      const answer = await call("POST", "/api/wiki", { token: author.token, headers: { "content-type": type }, body });
      const context = `${type} ${body.slice(0, 60)} → ${answer.text.slice(0, 300)}`;
      expect(answer.status, context).toBeGreaterThanOrEqual(400);
      expect(answer.status, context).toBeLessThan(500);
      expectError(answer, answer.status);
    }
  });

  describe("with BODY_LIMIT=1kb", () => {
    let small: TestServer;
    let token: string;
    beforeAll(async () => {
      small = await startServer({ bodyLimit: "1kb" });
      token = (await small.user()).token;
    });
    afterAll(async () => {
      await small?.close();
    });

    const big = "x".repeat(4096);

    it("a small body is accepted", async () => {
      const answer = await call("POST", "/api/wiki", { base: small.url, token, headers: JSON_TYPE, body: jsonBody({ title: "Small", pagetext: "fits" }) });
      expect(answer.status, answer.text).toBe(201);
    });

    it("a larger JSON, form or multipart body is 413 with the contract's body", async () => {
      const form = new FormData();
      form.set("title", "Big multipart");
      form.set("pagetext", big);
      const answers = [
        await call("POST", "/api/wiki", { base: small.url, token, headers: JSON_TYPE, body: jsonBody({ title: "Big", pagetext: big }) }),
        await call("POST", "/api/wiki", {
          base: small.url,
          token,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ title: "Big form", pagetext: big }).toString(),
        }),
        await call("POST", "/api/wiki", { base: small.url, token, body: form }),
      ];
      for (const answer of answers) {
        expectError(answer, 413);
        expect(answer.headers.get("x-api-version")).toBeTruthy();
      }
      expect(await small.app.db.prisma.wikiPage.count({ where: { title: { startsWith: "Big" } } })).toBe(0);
    });

    /** POSTs `text` to /api/wiki as a stream: sent chunked, without Content-Length. */
    const chunked = async (type: string, text: string) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
      // A stream body needs `duplex: "half"` (fetch standard); Node's RequestInit type does not list it yet.
      const init: RequestInit & { duplex: "half" } = {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": type },
        body,
        duplex: "half",
      };
      const response = await fetch(`${small.url}/api/wiki`, init);
      const answerText = await response.text();
      return { status: response.status, headers: response.headers, text: answerText, body: JSON.parse(answerText) } as Answer;
    };

    it("a larger body sent chunked (no Content-Length) is 413 too", async () => {
      expectError(await chunked("application/json", jsonBody({ title: "Big chunked", pagetext: big })), 413);
      const multipart = [
        "--b0undary",
        'Content-Disposition: form-data; name="title"',
        "",
        "Big chunked multipart",
        "--b0undary",
        'Content-Disposition: form-data; name="pagetext"',
        "",
        big,
        "--b0undary--",
        "",
      ].join("\r\n");
      expectError(await chunked("multipart/form-data; boundary=b0undary", multipart), 413);
      expect(await small.app.db.prisma.wikiPage.count({ where: { title: { startsWith: "Big" } } })).toBe(0);
    });

    it("the limit holds for a chunked multipart body as a whole, even when every field is under it", async () => {
      const part = (name: string, value: string) => ["--b0undary", `Content-Disposition: form-data; name="${name}"`, "", value];
      const multipart = [
        ...part("title", "Big in small parts"),
        ...part("pagetext", "p".repeat(800)),
        ...part("summary", "s".repeat(800)),
        ...part("params[a]", "a".repeat(800)),
        ...part("params[b]", "b".repeat(800)),
        "--b0undary--",
        "",
      ].join("\r\n");
      expect(multipart.length).toBeGreaterThan(3000);
      const answer = await chunked("multipart/form-data; boundary=b0undary", multipart);
      expectError(answer, 413);
      expect(answer.headers.get("x-api-version")).toBe("1.0");
      expect(await small.app.db.prisma.wikiPage.count({ where: { title: "Big in small parts" } })).toBe(0);
      // The same parts, small enough in total, are accepted.
      const fits = [...part("title", "Small in small parts"), ...part("pagetext", "p".repeat(300)), "--b0undary--", ""].join("\r\n");
      expect((await chunked("multipart/form-data; boundary=b0undary", fits)).status).toBe(201);
    });
  });
});

describe("error bodies", () => {
  it("401 for an anonymous write, with WWW-Authenticate", async () => {
    expectError(await call("POST", "/api/wiki", { headers: JSON_TYPE, body: jsonBody({ title: "Anon", pagetext: "x" }) }), 401);
  });

  it("403 for a write the caller may not make", async () => {
    const page = await createPage({}, admin.token);
    expectError(await call("DELETE", `/api/wiki/${page.id}`, { token: author.token }), 403);
    expect((await call("GET", `/api/wiki/${page.id}`)).status).toBe(200);
  });

  it("409 for a duplicate pagename, naming it", async () => {
    await createPage({ pagename: "Unique_name" });
    const again = await call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: jsonBody({ title: "t", pagetext: "p", pagename: "Unique_name" }) });
    expectError(again, 409);
    expect(again.body.errors[0].parameter).toBe("pagename");
  });

  it("400 names the REST parameter, not the GraphQL field", async () => {
    const answer = await call("POST", "/api/wiki", { token: author.token, headers: JSON_TYPE, body: jsonBody({ title: "t", pagetext: "p", scope_id: -1 }) });
    expectParameterError(answer, "scope_id");
    expect(answer.body.errors.map((problem: { parameter: string }) => problem.parameter)).not.toContain("scopeId");
  });

  it("DELETE answers 204 with no body", async () => {
    const page = await createPage();
    const answer = await call("DELETE", `/api/wiki/${page.id}`, { token: author.token });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expectError(await call("GET", `/api/wiki/${page.id}`), 404);
  });
});

describe("GraphQL over HTTP", () => {
  const LIST = "{ wikiPages(limit: 1) { total items { id title } } }";

  it("POST /graphql runs a query", async () => {
    const answer = await call("POST", "/graphql", { headers: JSON_TYPE, body: jsonBody({ query: LIST }) });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(typeof answer.body.data.wikiPages.total).toBe("number");
  });

  it("GET /graphql?query=… runs a query", async () => {
    const answer = await call("GET", `/graphql?query=${encodeURIComponent(LIST)}`, { headers: { accept: "application/graphql-response+json" } });
    expect(answer.status).toBe(200);
    expect(typeof answer.body.data.wikiPages.total).toBe("number");
  });

  it("GET /graphql cannot run a mutation", async () => {
    const mutation = 'mutation { deleteWikiPage(id: "1") }';
    const answer = await call("GET", `/graphql?query=${encodeURIComponent(mutation)}`, { token: admin.token, headers: { accept: "application/json" } });
    expect(answer.status).toBe(405);
  });

  it("GET /graphql in a browser serves GraphiQL", async () => {
    const answer = await call("GET", "/graphql", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(answer.text).toMatch(/<html/i);
    expect(answer.text).toContain("GraphiQL");
  });

  it("passes every MUST audit of the GraphQL-over-HTTP spec (graphql-http)", async () => {
    const audits = serverAudits({ url: `${server.url}/graphql`, fetchFn: fetch });
    const results: AuditResult[] = [];
    for (const audit of audits) results.push(await audit.fn());
    const musts = results.filter((result) => result.name.startsWith("MUST"));
    expect(musts.length).toBeGreaterThan(10);
    const failed = musts.filter((result) => result.status !== "ok").map((result) => `${result.id} ${result.name}: ${"reason" in result ? result.reason : ""}`);
    expect(failed).toEqual([]);
  });

  it("an unauthenticated mutation is UNAUTHENTICATED", async () => {
    const answer = await call("POST", "/graphql", {
      headers: JSON_TYPE,
      body: jsonBody({ query: 'mutation { createWikiPage(input: { title: "Anon", pagetext: "x" }) { id } }' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toBeNull();
    expect(answer.body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(answer.body.errors[0].path).toEqual(["createWikiPage"]);
  });

  it("a forbidden mutation is FORBIDDEN", async () => {
    const page = await createPage({}, admin.token);
    const answer = await call("POST", "/graphql", {
      token: author.token,
      headers: JSON_TYPE,
      body: jsonBody({ query: "mutation ($id: ID!) { deleteWikiPage(id: $id) }", variables: { id: String(page.id) } }),
    });
    expect(answer.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  it("bad input is BAD_REQUEST naming the camelCase input field", async () => {
    const answer = await call("POST", "/graphql", {
      token: author.token,
      headers: JSON_TYPE,
      body: jsonBody({
        query: "mutation ($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id } }",
        variables: { input: { title: "Bad scope", pagetext: "x", scopeId: -1 } },
      }),
    });
    expect(answer.status).toBe(200);
    const error = answer.body.errors[0];
    expect(error.extensions.code).toBe("BAD_REQUEST");
    expect(error.extensions.errors).toContainEqual(expect.objectContaining({ parameter: "scopeId" }));
    expect(error.message).toContain("scopeId");

    const empty = await call("POST", "/graphql", {
      token: author.token,
      headers: JSON_TYPE,
      body: jsonBody({ query: 'mutation { createWikiPage(input: { title: " ", pagetext: "x" }) { id } }' }),
    });
    expect(empty.body.errors[0].extensions.code).toBe("BAD_REQUEST");
    expect(empty.body.errors[0].extensions.errors[0].parameter).toBe("title");
  });

  it("an out-of-range id is BAD_REQUEST, not an internal error", async () => {
    const answer = await call("POST", "/graphql", {
      headers: JSON_TYPE,
      body: jsonBody({ query: '{ wikiPage(id: "99999999999999999999") { id } }' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.errors[0].extensions.code).toBe("BAD_REQUEST");
  });
});

describe("every root field declares its auth rule", () => {
  /** Pothos keeps a field's options in `extensions.pothosOptions`; scope-auth reads `authScopes` from there. */
  const declaresAuth = (field: GraphQLField<unknown, unknown>): boolean => {
    const options = field.extensions?.pothosOptions as { authScopes?: unknown } | undefined;
    const scopes = options?.authScopes;
    if (typeof scopes === "function") return true;
    return typeof scopes === "object" && scopes !== null && Object.keys(scopes).length > 0;
  };

  const rootFields = (type: GraphQLObjectType | null | undefined) => Object.values(type?.getFields() ?? {});

  it("the check tells a field with authScopes from one without", () => {
    type ProbeTypes = { AuthScopes: { open: boolean } };
    const options = { plugins: [ScopeAuthPlugin], scopeAuth: { authScopes: () => ({ open: true }) } };
    // @pothos/plugin-prisma's global types make `prisma` a required option of every builder; this probe
    // builder does not load that plugin, so the option is not needed at run time.
    const probe = new SchemaBuilder<ProbeTypes>(options as unknown as ConstructorParameters<typeof SchemaBuilder<ProbeTypes>>[0]);
    probe.queryType({
      fields: (t) => ({
        guarded: t.string({ authScopes: { open: true }, resolve: () => "yes" }),
        guardedByFunction: t.string({ authScopes: () => ({ open: true }), resolve: () => "yes" }),
        unguarded: t.string({ resolve: () => "no" }),
      }),
    });
    const fields = probe.toSchema().getQueryType()!.getFields();
    expect(declaresAuth(fields.guarded!)).toBe(true);
    expect(declaresAuth(fields.guardedByFunction!)).toBe(true);
    expect(declaresAuth(fields.unguarded!)).toBe(false);
  });

  it("holds for every Query, Mutation and Subscription field of the schema", () => {
    const fields = [
      ...rootFields(schema.getQueryType()).map((field) => ({ type: "Query", field })),
      ...rootFields(schema.getMutationType()).map((field) => ({ type: "Mutation", field })),
      ...rootFields(schema.getSubscriptionType()).map((field) => ({ type: "Subscription", field })),
    ];
    expect(fields.length).toBeGreaterThan(5);
    expect(fields.map(({ type, field }) => `${type}.${field.name}`)).toEqual(expect.arrayContaining(["Query.me", "Mutation.createWikiPage"]));
    const missing = fields.filter(({ field }) => !declaresAuth(field)).map(({ type, field }) => `${type}.${field.name}`);
    expect(missing).toEqual([]);
    expect(fields.map(({ type, field }) => `${type}.${field.name}`)).toEqual(expect.arrayContaining(["Subscription.events", "Subscription.wikiPageChanged"]));
  });
});

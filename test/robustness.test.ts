import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser, capturingLogger, isServerFault } from "./server.js";

/**
 * Regression tests for hostile input a black-box probe found (issue 7). The generated fuzzer
 * (test/fuzz.test.ts) covers every row and GraphQL argument; these pin the exact reproducers.
 */

let server: TestServer;
let admin: TestUser;
/** Lines the server logged as unexpected: a client's input must never produce one. */
const unexpected: string[] = [];

beforeAll(async () => {
  server = await startServer(
    { registration: "open" },
    capturingLogger((line) => {
      if (isServerFault(line)) unexpected.push(`${line.msg} ${String(line.err?.stack ?? "")}`.slice(0, 500));
    }),
  );
  admin = await server.user({ admin: true });
});

afterAll(() => server?.close());

/** A request with a hand-written body, so JSON escapes such as a lone "\ud800" arrive exactly as a client sends them. */
async function send(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

const asAdmin = () => ({ authorization: `Bearer ${admin.token}` });
const parameters = (body: { errors?: { parameter: string }[] }) => (body.errors ?? []).map((problem) => problem.parameter);
/** The GraphQL problems of a result: `extensions.code` and the parameters named. */
const graphqlProblem = (body: { errors?: { extensions?: { code?: string; errors?: { parameter: string }[] } }[] }) => ({
  code: body.errors?.[0]?.extensions?.code,
  parameters: (body.errors?.[0]?.extensions?.errors ?? []).map((problem) => problem.parameter),
});

describe("text with a lone UTF-16 surrogate is a 400 naming the parameter", () => {
  const lone = "\\ud800";
  it.each([
    ["POST /api/session, anonymous", "POST", "/api/session", `{"username":"${lone}","password":"x"}`, "username", false],
    ["POST /api/session, in the password", "POST", "/api/session", `{"username":"someone","password":"a${lone}b"}`, "password", false],
    ["POST /api/wiki title", "POST", "/api/wiki", `{"title":"${lone}","pagetext":"x"}`, "title", true],
    ["POST /api/wiki pagetext (low half)", "POST", "/api/wiki", `{"title":"t","pagetext":"x\\udfff"}`, "pagetext", true],
    ["POST /api/wiki inside params", "POST", "/api/wiki", `{"title":"t","pagetext":"x","params":{"mode":"${lone}"}}`, "params.mode", true],
    ["POST /api/wiki in a params key", "POST", "/api/wiki", `{"title":"t","pagetext":"x","params":{"${lone}":1}}`, "params", true],
    ["POST /api/blog tags", "POST", "/api/blog", `{"scope":"site","scope_id":0,"title":"t","content":"c","tags":["ok","${lone}"]}`, "tags.1", true],
    ["POST /api/members name (open registration)", "POST", "/api/members", `{"username":"sur1","email":"sur1@example.test","password":"long-enough-password","name":"${lone}"}`, "name", false],
  ] as const)("%s", async (_case, method, path, body, parameter, signedIn) => {
    const result = await send(method, path, body, signedIn ? asAdmin() : {});
    expect(result.status, result.text).toBe(400);
    expect(result.body.code).toBe(400);
    expect(parameters(result.body)).toEqual([parameter]);
    expect(result.body.message).toContain(parameter);
  });

  it("on the token endpoint the OAuth error says invalid_request", async () => {
    const result = await send("POST", "/api/developer/oauth/token", `{"grant_type":"password","username":"${lone}","password":"x"}`);
    expect(result.status, result.text).toBe(400);
    expect(result.body.error).toBe("invalid_request");
  });

  it("GraphQL variables, sent as JSON or in a GET query string, are BAD_REQUEST naming the variable", async () => {
    const query = "query($search: String) { wikiPages(search: $search) { total } }";
    const posted = await send("POST", "/graphql", `{"query":${JSON.stringify(query)},"variables":{"search":"${lone}"}}`);
    expect(graphqlProblem(posted.body), posted.text).toEqual({ code: "BAD_REQUEST", parameters: ["search"] });
    const mutation = "mutation($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id } }";
    const nested = await send("POST", "/graphql", `{"query":${JSON.stringify(mutation)},"variables":{"input":{"title":"${lone}","pagetext":"x"}}}`, asAdmin());
    expect(graphqlProblem(nested.body), nested.text).toEqual({ code: "BAD_REQUEST", parameters: ["input.title"] });
    const viaGet = await send("GET", `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(`{"search":"${lone}"}`)}`);
    expect(graphqlProblem(viaGet.body), viaGet.text).toEqual({ code: "BAD_REQUEST", parameters: ["search"] });
  });

  it("left nothing in the log", () => {
    expect(unexpected).toEqual([]);
  });
});

describe("huge and deeply nested JSON is a 400, never a stack overflow", () => {
  const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
  const deepArray = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;
  const hugeArray = `[${Array.from({ length: 120_000 }, () => "1").join(",")}]`;

  it.each([
    ["an array of 120,000 elements inside params", `{"a":${hugeArray}}`],
    ["params nested 4,000 objects deep", deepObject(4000)],
    ["an array nested 100,000 deep inside params", `{"a":${deepArray(100_000)}}`],
  ])("REST: %s", async (_case, params) => {
    const started = Date.now();
    const result = await send("POST", "/api/wiki", `{"title":"t","pagetext":"x","params":${params}}`, asAdmin());
    expect(result.status, result.text.slice(0, 300)).toBe(400);
    expect(parameters(result.body)).toContain("params");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it.each([
    ["params nested 4,000 objects deep", deepObject(4000)],
    ["an array nested 100,000 deep inside params", `{"a":${deepArray(100_000)}}`],
  ])("GraphQL: %s", async (_case, params) => {
    const mutation = "mutation($params: JSON) { createWikiPage(input: { title: \"t\", pagetext: \"x\", params: $params }) { id } }";
    const result = await send("POST", "/graphql", `{"query":${JSON.stringify(mutation)},"variables":{"params":${params}}}`, asAdmin());
    expect(graphqlProblem(result.body).code, result.text.slice(0, 300)).toBe("BAD_REQUEST");
  });

  it("left nothing in the log", () => {
    expect(unexpected).toEqual([]);
  });
});

describe("concurrent writes", () => {
  it("sign-ups with one username or one e-mail address: one 201, every other a 409 naming the field", async () => {
    const signUp = (username: string, email: string) =>
      send("POST", "/api/members", JSON.stringify({ username, email, password: "long-enough-password", name: "Racer" }));
    const sameName = await Promise.all(Array.from({ length: 20 }, (_, index) => signUp("racer", `racer${index}@example.test`)));
    expect(sameName.map((result) => result.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    for (const result of sameName.filter((candidate) => candidate.status === 409)) expect(parameters(result.body)).toEqual(["username"]);

    const sameEmail = await Promise.all(Array.from({ length: 20 }, (_, index) => signUp(`mailer${index}`, "Shared@example.test")));
    expect(sameEmail.map((result) => result.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    for (const result of sameEmail.filter((candidate) => candidate.status === 409)) expect(parameters(result.body)).toEqual(["email"]);
    expect(unexpected).toEqual([]);
  });

  it.each([
    ["wiki", "/api/wiki", { title: "Same Title", pagetext: "x" }, "pagename", (n: number) => (n === 1 ? "SameTitle" : `SameTitle_${n}`)],
    ["blog", "/api/blog", { scope: "site", scope_id: 0, title: "Same Title", content: "x" }, "alias", (n: number) => (n === 1 ? "same-title" : `same-title-${n}`)],
  ] as const)("%s: concurrent creates with one title all succeed, each with its own derived name", async (_area, path, body, field, nameNumber) => {
    const count = 40;
    const results = await Promise.all(Array.from({ length: count }, () => send("POST", path, JSON.stringify(body), asAdmin())));
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status !== 201), JSON.stringify(results.find((result) => result.status !== 201)?.body)).toEqual([]);
    const names = results.map((result) => result.body[field]).sort();
    expect(names).toEqual(Array.from({ length: count }, (_, index) => nameNumber(index + 1)).sort());
    expect(unexpected).toEqual([]);
  });

  it.each([
    ["wiki", "/wiki", { title: "Raced", pagetext: "x", state: 1 }, (round: number) => ({ title: "Raced", pagetext: `changed ${round}` })],
    ["blog", "/blog", { scope: "site", scope_id: 0, title: "Raced", content: "x", state: 1 }, (round: number) => ({ title: "Raced", content: `changed ${round}` })],
  ] as const)("%s: an update racing a delete of the same record is a 200 or a 404, never a 500 (found by the fuzzer)", async (_area, path, body, change) => {
    const statuses: number[] = [];
    for (let round = 0; round < 6; round++) {
      const created = await server.rest("POST", path, { token: admin.token, body });
      const record = `${path}/${created.body.id}`;
      const results = await Promise.all([
        server.rest("PUT", record, { token: admin.token, body: change(round) }),
        server.rest("DELETE", record, { token: admin.token }),
        server.rest("PUT", record, { token: admin.token, body: change(round + 100) }),
      ]);
      statuses.push(...results.map((result) => result.status));
    }
    expect(statuses.filter((status) => ![200, 204, 404].includes(status))).toEqual([]);
    expect(unexpected).toEqual([]);
  });
});

describe("other hostile values", () => {
  it("NUL characters are a 400 on GraphQL too, and inside JSON options", async () => {
    const mutation = "mutation($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id } }";
    const graphql = await send("POST", "/graphql", JSON.stringify({ query: mutation, variables: { input: { title: "a\u0000b", pagetext: "x" } } }), asAdmin());
    expect(graphql.body.errors[0].extensions.code).toBe("BAD_REQUEST");
    const options = await server.rest("POST", "/wiki", { token: admin.token, body: { title: "t", pagetext: "p", params: { mode: "a\u0000b" } } });
    expect(options.status).toBe(400);
  });

  it("a NUL in a sign-in name is a 400 naming it (found by the fuzzer: it was a 500 from the database)", async () => {
    const session = await send("POST", "/api/session", JSON.stringify({ username: "a\u0000b", password: "whatever-password" }));
    expect(session.status, session.text).toBe(400);
    expect(parameters(session.body)).toEqual(["username"]);
    const form = await send("POST", "/api/session", "username=a%00b&password=x", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status, form.text).toBe(400);
    const token = await send("POST", "/api/developer/oauth/token", JSON.stringify({ grant_type: "password", username: "a\u0000b", password: "x" }));
    expect(token.status, token.text).toBe(400);
    expect(token.body.error).toBe("invalid_request");
    expect(unexpected).toEqual([]);
  });

  it("an object whose toString is not a function is a 400 for a boolean parameter (found by the fuzzer: it was a 500)", async () => {
    const result = await send("POST", "/api/members", JSON.stringify({ username: "tostring", email: "tostring@example.test", password: "long-enough-password", name: "T", admin: { toString: 1, valueOf: "x" } }), asAdmin());
    expect(result.status, result.text).toBe(400);
    expect(parameters(result.body)).toEqual(["admin"]);
    expect(unexpected).toEqual([]);
  });

  it("the same holds for path ids", async () => {
    for (const id of ["0", "-1", "2147483648", "1.5", "%20", "list", "99999999999999999999999"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = await server.rest(method, `/wiki/${id}`, { token: admin.token, body: method === "PUT" ? { title: "t", pagetext: "p" } : undefined });
        expect(response.status, `${method} /wiki/${id}`).toBeLessThan(500);
      }
    }
  });
});

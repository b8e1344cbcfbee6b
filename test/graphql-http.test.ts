import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ bodyLimit: "2kb", corsOrigins: ["https://app.example.test"] });
});
afterAll(() => server?.close());

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json", ...headers }, body });

describe("GraphQL request errors", () => {
  const listQuery = "query($limit: Int) { wikiPages(limit: $limit) { total } }";
  it.each([
    ["a string for an Int", listQuery, { limit: "abc" }],
    ["an Int out of range", listQuery, { limit: 99_999_999_999 }],
    ["an object for an ID", "query($id: ID!) { wikiPage(id: $id) { id } }", { id: { a: 1 } }],
  ])("reports %s as BAD_REQUEST, with no internal detail", async (_case, query, variables) => {
    const response = await post(JSON.stringify({ query, variables }));
    const body = (await response.json()) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.errors[0]!.extensions.code).toBe("BAD_REQUEST");
    expect(body.errors[0]!.message).toMatch(/Variable "\$(limit|id)"/);
    expect(JSON.stringify(body)).not.toMatch(/originalError|stack|prisma/i);
  });

  it("reports an impossible DateTime variable as BAD_REQUEST", async () => {
    const query = "mutation($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id } }";
    const response = await post(JSON.stringify({ query, variables: { input: { title: "t", pagetext: "p", created: "2024-02-30T00:00:00Z" } } }));
    const body = (await response.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]!.extensions.code).toBe("BAD_REQUEST");
  });

  it("answers malformed JSON with 400 and without the parser's internals", async () => {
    const response = await post('{"query": "{ wikiPages { total } }"');
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toContain("originalError");
  });

  it("holds BODY_LIMIT for GraphQL bodies, with or without Content-Length", async () => {
    const big = JSON.stringify({ query: `{ wikiPages { total } } # ${"x".repeat(4000)}` });
    expect((await post(big)).status).toBe(413);
    const chunked = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    expect(chunked.status).toBe(413);
    const small = await post(JSON.stringify({ query: "{ wikiPages { total } }" }));
    expect(small.status).toBe(200);
  });
});

describe("CORS", () => {
  it("answers only the configured origins, with credentials, on /graphql and /api", async () => {
    for (const path of ["/graphql?query=%7B__typename%7D", "/api/wiki/list"]) {
      const trusted = await fetch(`${server.url}${path}`, { headers: { origin: "https://app.example.test" } });
      expect(trusted.headers.get("access-control-allow-origin")).toBe("https://app.example.test");
      expect(trusted.headers.get("access-control-allow-credentials")).toBe("true");
      const stranger = await fetch(`${server.url}${path}`, { headers: { origin: "http://evil.localhost:8000" } });
      expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
    }
    const preflight = await fetch(`${server.url}/graphql`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.test", "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-csrf-token" },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/X-CSRF-Token/i);
    // A trusted page may retry safely and write conditionally on both surfaces, and read what came back.
    const allowed = preflight.headers.get("access-control-allow-headers")!.toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(["idempotency-key", "if-match", "if-none-match"]));
    const exposed = (await fetch(`${server.url}/api/wiki/list`, { headers: { origin: "https://app.example.test" } })).headers.get("access-control-expose-headers")!.toLowerCase();
    expect(exposed.split(/,\s*/)).toEqual(expect.arrayContaining(["etag", "idempotent-replayed"]));
  });

  it("lets a trusted page send PATCH, the facade's partial update", async () => {
    const preflight = await fetch(`${server.url}/api/wiki/1`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.test", "access-control-request-method": "PATCH", "access-control-request-headers": "content-type,x-csrf-token" },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("access-control-allow-methods")!.split(/,\s*/)).toContain("PATCH");
  });

  it("sends no CORS headers at all by default", async () => {
    const plain = await startServer();
    try {
      const response = await fetch(`${plain.url}/graphql?query=%7B__typename%7D`, { headers: { origin: "http://evil.localhost:8000" } });
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    } finally {
      await plain.close();
    }
  });
});

describe("documents run again (compiled from their second run on, src/graphql/compiled.ts)", () => {
  type Body = { data?: Record<string, any> | null; errors?: { message: string; path?: string[]; extensions: { code: string } }[] };
  const cases: [string, string, Record<string, unknown> | undefined, (body: Body) => void][] = [
    [
      "fragments, aliases, @include/@skip and nested relations",
      `query($limit: Int, $withTotal: Boolean!, $withoutUrl: Boolean!) {
        first: wikiPages(limit: $limit, sort: "id") { items { ...page version { id version createdBy { username } } } total @include(if: $withTotal) }
        second: wikiPages(limit: 1, sortDir: "desc") { items { id url @skip(if: $withoutUrl) } }
      }
      fragment page on WikiPage { id title created modified access params revisionCount createdBy { id username } }`,
      { limit: 3, withTotal: true, withoutUrl: true },
      (body) => {
        expect(body.data!.first.items).toHaveLength(3);
        expect(body.data!.first.items[0].version.createdBy.username).toMatch(/^user/);
        expect(body.data!.first.total).toBeGreaterThanOrEqual(3);
        expect(body.data!.second.items[0]).toEqual({ id: expect.any(String) });
      },
    ],
    [
      "an error with its path (wikiPage is non-null, so data is null)",
      `{ wikiPages(limit: 1) { total } missing: wikiPage(id: "999999") { id } }`,
      undefined,
      (body) => {
        expect(body.data).toBeNull();
        expect(body.errors!.map((error) => [error.path, error.extensions.code])).toEqual([[["missing"], "NOT_FOUND"]]);
      },
    ],
    [
      "a variable of the wrong type",
      "query($limit: Int) { wikiPages(limit: $limit) { total } }",
      { limit: "many" },
      (body) => expect(body.errors![0]!.extensions.code).toBe("BAD_REQUEST"),
    ],
    ["a missing required variable", "query($id: ID!) { wikiPage(id: $id) { id } }", {}, (body) => expect(body.errors![0]!.message).toMatch(/\$id/)],
    ["introspection", `{ __type(name: "WikiPage") { name fields { name } } __typename }`, undefined, (body) => expect(body.data!.__typename).toBe("Query")],
  ];

  beforeAll(async () => {
    const { token } = await server.user();
    for (const title of ["Compiled one", "Compiled two", "Compiled three"]) {
      const created = await server.rest("POST", "/wiki", { token, body: { title, pagetext: `Text of ${title}`, state: 1, params: { shown: true } } });
      expect(created.status).toBe(201);
    }
  });

  it.each(cases)("answers %s the same on its first run and every later one", async (_case, query, variables, check) => {
    const answers = [];
    for (let run = 0; run < 3; run++) {
      const response = await post(JSON.stringify({ query, variables }));
      answers.push({ status: response.status, body: await response.json() });
    }
    check(answers[0]!.body as Body);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });
});

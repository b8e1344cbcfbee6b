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

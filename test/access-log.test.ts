import http from "node:http";
import type { AddressInfo } from "node:net";
import { takeResponseViolations } from "./openapi-responses.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturingLogger, startServer, type LoggedLine, type TestServer } from "./server.js";

/** The fields of a request's log line this test reads. */
interface LogLine extends LoggedLine {
  time: string;
  requestId?: string;
  method?: string;
  path?: string;
  status?: number;
  duration?: number;
  userId?: number | null;
  operation?: string;
  version?: string;
  err?: { message: string; stack: string };
}

/** A server whose log lines (pino's JSON) are kept in `lines`. */
async function serverWithCapturedLogs(): Promise<{ server: TestServer; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  return { server: await startServer({}, capturingLogger((line) => void lines.push(line as LogLine))), lines };
}

const requestLine = (lines: LogLine[], requestId: string) => lines.find((line) => line.requestId === requestId && line.status !== undefined);
// The line is written when the response ends, which can be a moment after the client has read it.
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("request logs", () => {
  let server: TestServer;
  let lines: LogLine[];
  beforeAll(async () => ({ server, lines } = await serverWithCapturedLogs()));
  afterAll(() => server?.close());

  it("writes one JSON line per request: time, level, request id, user, operation, version, status, duration — never the query string", async () => {
    const user = await server.user();
    const response = await fetch(`${server.url}/api/wiki/list?search=secret-looking-value&limit=5`, {
      headers: { authorization: `Bearer ${user.token}`, "x-request-id": "trace-4bf92f35.01" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("trace-4bf92f35.01");
    await settle();

    const line = requestLine(lines, "trace-4bf92f35.01");
    expect(line).toMatchObject({
      level: "info",
      method: "GET",
      path: "/api/wiki/list",
      status: 200,
      userId: user.id,
      operation: "GET /api/wiki/list",
      version: "1.0",
      msg: "GET /api/wiki/list 200",
    });
    expect(new Date(line!.time).toISOString()).toBe(line!.time);
    expect(line!.duration).toBeGreaterThanOrEqual(0);
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain("secret-looking-value");
    // Nor the password of the token request, nor any token.
    expect(everything).not.toContain(user.password);
    expect(everything).not.toContain(user.token);
  });

  it("names the facade row by its path template, and anonymous callers as userId null", async () => {
    const response = await fetch(`${server.url}/api/v1.0/wiki/abc`);
    expect(response.status).toBe(400);
    await settle();
    expect(requestLine(lines, response.headers.get("x-request-id")!)).toMatchObject({
      path: "/api/v1.0/wiki/abc",
      status: 400,
      userId: null,
      operation: "GET /api/wiki/{id}",
      version: "1.0",
    });
  });

  it("names GraphQL requests by their operation, and other requests by route or as unmatched", async () => {
    const graphql = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "query RecentPages { wikiPages(limit: 1) { total } }" }),
    });
    const invalid = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "query Broken { noSuchField }" }),
    });
    const health = await fetch(`${server.url}/health`);
    const nowhere = await fetch(`${server.url}/nowhere/at/all`);
    const session = await fetch(`${server.url}/api/session`, { method: "POST", body: new URLSearchParams({ username: "nobody", password: "wrong-password" }) });
    await settle();
    expect(requestLine(lines, graphql.headers.get("x-request-id")!)).toMatchObject({ status: 200, operation: "graphql query RecentPages" });
    // Refused by validation: still named after its operation, and the line carries the errors' code (issue 32: it read as a plain success).
    expect(requestLine(lines, invalid.headers.get("x-request-id")!)).toMatchObject({
      operation: "graphql query Broken",
      graphqlErrors: ["GRAPHQL_VALIDATION_FAILED"],
      msg: expect.stringContaining("with errors GRAPHQL_VALIDATION_FAILED (graphql query Broken)"),
    });
    // Probes are logged at debug level, below this logger's info.
    expect(requestLine(lines, health.headers.get("x-request-id")!)).toBeUndefined();
    expect(requestLine(lines, nowhere.headers.get("x-request-id")!)).toMatchObject({ status: 404, operation: "unmatched" });
    expect(requestLine(lines, session.headers.get("x-request-id")!)).toMatchObject({ status: 401, operation: "POST /api/session" });
  });

  it("logs a GraphQL answer that carries errors (HTTP 200) with their codes and the operation's name", async () => {
    const user = await server.user();
    const ask = (query: string, token?: string) =>
      fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query }),
      });
    const missing = await ask("query MissingPage { wikiPage(id: 987654) { id } }");
    const refused = await ask("mutation DropCitation { deleteCitation(id: 1) }", user.token);
    expect([missing.status, refused.status]).toEqual([200, 200]);
    await settle();
    expect(requestLine(lines, missing.headers.get("x-request-id")!)).toMatchObject({
      level: "info",
      status: 200,
      operation: "graphql query MissingPage",
      graphqlErrors: ["NOT_FOUND"],
      msg: "POST /graphql 200 with errors NOT_FOUND (graphql query MissingPage)",
    });
    expect(requestLine(lines, refused.headers.get("x-request-id")!)).toMatchObject({ operation: "graphql mutation DropCitation", graphqlErrors: ["FORBIDDEN"] });
  });

  it("shows a client's operation name only when it is a GraphQL name of at most 100 characters", async () => {
    const ask = (body: object) => fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const injected = await ask({ query: "query Fine { wikiPages(limit: 1) { total } }", operationName: 'Missing\n{"level":"error"} \u001b[31m' });
    const long = await ask({ query: `query ${"N".repeat(101)} { wikiPages(limit: 1) { total } }` });
    await settle();
    for (const answer of [injected, long]) {
      const line = requestLine(lines, answer.headers.get("x-request-id")!);
      expect(line!.operation).toBe("graphql query (unnamed)");
      expect(line!.msg).not.toMatch(/level|\u001b|NNNN/);
    }
  });

  it.each([
    ["too long", "x".repeat(129)],
    ["with spaces", "my request"],
    ["with quotes", 'a"b'],
  ])("replaces a request id that is %s with a UUID, and echoes that", async (_case, asked) => {
    const response = await fetch(`${server.url}/api/wiki/list`, { headers: { "x-request-id": asked } });
    const id = response.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await settle();
    expect(requestLine(lines, id)).toMatchObject({ path: "/api/wiki/list" });
    expect(JSON.stringify(lines)).not.toContain(asked);
  });

  it("gives every request its own id when the client sends none", async () => {
    const [first, second] = await Promise.all([fetch(`${server.url}/health`), fetch(`${server.url}/health`)]);
    expect(first.headers.get("x-request-id")).toBeTruthy();
    expect(first.headers.get("x-request-id")).not.toBe(second.headers.get("x-request-id"));
  });
});

it("logs an unexpected error with its stack and the request id of the request it broke", async () => {
  const { server, lines } = await serverWithCapturedLogs();
  try {
    // A database that has gone away is the simplest unexpected failure to cause from outside.
    await server.app.db.close();
    const graphql = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "broken-graphql" },
      body: JSON.stringify({ query: "{ wikiPages { total } }" }),
    });
    expect(((await graphql.json()) as { errors: unknown[] }).errors).toHaveLength(1);
    const rest = await fetch(`${server.url}/api/wiki/list`, { headers: { "x-request-id": "broken-list" } });
    expect(rest.status).toBe(500);
    // A 500 is never documented: the OpenAPI response check (test/openapi-responses.ts) reports it, as it should.
    expect(takeResponseViolations()).toEqual([expect.stringContaining("GET /api/wiki/list → 500")]);
    await settle();

    const errors = lines.filter((line) => line.level === "error" && line.err);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors.every((line) => line.requestId && line.err!.stack)).toBe(true);
    expect(errors.map((line) => line.requestId)).toEqual(expect.arrayContaining(["broken-graphql", "broken-list"]));
    // Each 5xx: its request's line at error level, with the request id and why.
    expect(requestLine(lines, "broken-list")).toMatchObject({ level: "error", status: 500, operation: "GET /api/wiki/list", error: expect.any(String) });
    expect(requestLine(lines, "broken-graphql")).toMatchObject({ level: "error", status: 200, graphqlErrors: ["INTERNAL_SERVER_ERROR"] });
  } finally {
    await server.close().catch(() => {});
  }
});

it("logs each failed webhook attempt: endpoint, status, attempt and next try (a receiver's 500 left only a metric)", { timeout: 30_000 }, async () => {
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const lines: LogLine[] = [];
  const server = await startServer({ webhookAllowedAddresses: ["127.0.0.1"], webhookTimeoutMs: 3000 }, capturingLogger((line) => void lines.push(line as LogLine)));
  try {
    const admin = await server.user({ admin: true });
    const registered = await server.graphqlText(
      "mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }",
      { input: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/secret-path`, eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 } },
      admin.token,
    );
    expect(registered.errors).toBeUndefined();
    const endpoint = Number(registered.data.createWebhookEndpoint.endpoint.id);
    expect((await server.rest("POST", "/wiki", { token: admin.token, body: { title: "Hooked", pagetext: "Text.", state: 1 } })).status).toBe(201);
    let failed: LogLine | undefined;
    for (const started = Date.now(); !(failed = lines.find((line) => line.webhook !== undefined)); ) {
      if (Date.now() - started > 15_000) throw new Error("no webhook attempt was logged within 15 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(failed).toMatchObject({
      level: "warn",
      webhook: { endpoint, status: 500, attempt: 1, outcome: expect.any(String), nextAttempt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      msg: expect.stringMatching(new RegExp(`^webhook attempt 1 of delivery \\d+ \\(event \\d+\\) to endpoint ${endpoint} at http://127\\.0\\.0\\.1:\\d+ answered 500; next try at `)),
    });
    // The origin only: a path may hold the receiver's token.
    expect(JSON.stringify(lines)).not.toContain("secret-path");
  } finally {
    await server.close();
    receiver.closeAllConnections();
    receiver.close();
  }
});

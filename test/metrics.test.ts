import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";
import { Prisma } from "../src/generated/prisma/client.js";
import { sqlClientOf } from "../src/db/sql.js";

const TOKEN = "metrics-token-for-tests-0123456789";

const graphql = (server: TestServer, query: string) =>
  fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });

/** The value of one sample line of Prometheus' text format, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split("\n")
    .find((candidate) => candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `) ? wanted.every((label) => candidate.includes(label)) : false);
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("/metrics with METRICS_TOKEN", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ metricsToken: TOKEN });
  });
  afterAll(() => server?.close());

  const scrape = async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it.each([
    ["no credentials", {}],
    ["a wrong token", { authorization: "Bearer not-the-metrics-token-at-all" }],
    ["the token without the Bearer scheme", { authorization: TOKEN }],
  ])("refuses %s with 401 and the contract's body", async (_case, headers: Record<string, string>) => {
    const response = await fetch(`${server.url}/metrics`, { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ code: 401, message: expect.stringContaining("METRICS_TOKEN") });
  });

  it("counts requests by facade row, API version and status, with latency buckets", async () => {
    const before = sample(await scrape(), "http_request_duration_seconds_count", { operation: "GET /api/wiki/list", version: "1.0", status: "200" }) ?? 0;
    await fetch(`${server.url}/api/wiki/list?search=a`);
    await fetch(`${server.url}/api/wiki/list?search=b`);
    await fetch(`${server.url}/api/wiki/1?v=1.0`);
    await fetch(`${server.url}/api/wiki/abc`);
    const text = await scrape();
    expect(sample(text, "http_request_duration_seconds_count", { operation: "GET /api/wiki/list", version: "1.0", status: "200" })).toBe(before + 2);
    expect(sample(text, "http_request_duration_seconds_count", { operation: "GET /api/wiki/{id}", version: "1.0", status: "404" })).toBe(1);
    expect(sample(text, "http_request_duration_seconds_count", { operation: "GET /api/wiki/{id}", version: "1.0", status: "400" })).toBe(1);
    expect(sample(text, "http_request_duration_seconds_bucket", { le: "+Inf", operation: "GET /api/wiki/list", status: "200" })).toBe(before + 2);
    expect(text).toContain("# TYPE http_request_duration_seconds histogram");
  });

  it("counts GraphQL requests by operation name, with their execution timed (not the cached parse, validation or context)", async () => {
    await graphql(server, "query MetricsProbe { wikiPages(limit: 1) { total } }");
    await graphql(server, "{ wikiPages(limit: 1) { total } }");
    const text = await scrape();
    expect(sample(text, "http_request_duration_seconds_count", { operation: "graphql query MetricsProbe", status: "200" })).toBe(1);
    expect(sample(text, "http_request_duration_seconds_count", { operation: "graphql query (anonymous)", status: "200" })).toBe(1);
    expect(sample(text, "graphql_envelop_phase_execute_count", { operationType: "query" })).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain("graphql_envelop_phase_parse");
    expect(text).not.toContain("graphql_envelop_phase_validate");
    expect(text).not.toContain("graphql_envelop_phase_context");
  });

  it("sees REST rows execute through the same chain: their executions are in the GraphQL phase timings", async () => {
    const executions = async () => sample(await scrape(), "graphql_envelop_phase_execute_count", { operationType: "query" }) ?? 0;
    const before = await executions();
    await fetch(`${server.url}/api/wiki/list?search=c`);
    await fetch(`${server.url}/api/blog/list`);
    expect(await executions()).toBe(before + 2);
  });

  it("counts GraphQL requests and their errors by phase, as @envelop/prometheus named them", async () => {
    const read = (text: string, name: string, labels: Record<string, string>) => sample(text, name, labels) ?? 0;
    const before = await scrape();
    await graphql(server, "{ wikiPages(limit: 1) { total } }");
    await graphql(server, "{ wikiPage(id: -5) { id } }");
    await graphql(server, "{ wikiPages { noSuchField } }");
    await graphql(server, "{ wikiPages { ");
    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) => read(after, name, labels) - read(before, name, labels);
    expect(grew("graphql_envelop_request", { operationType: "query" })).toBe(2);
    expect(grew("graphql_envelop_request_duration_count", { operationType: "query" })).toBe(2);
    expect(grew("graphql_envelop_error_result", { operationType: "query", phase: "execute", path: "wikiPage" })).toBe(1);
    expect(grew("graphql_envelop_error_result", { operationType: "query", phase: "validate" })).toBe(1);
    expect(grew("graphql_envelop_error_result", { operationType: "undefined", phase: "parse" })).toBe(1);
    expect(after).toContain("# TYPE graphql_envelop_phase_subscribe histogram");
  });

  it("keeps at most 100 error paths apart: aliases cannot grow the error series without bound", async () => {
    // A refused argument ends the operation at its first error: one aliased error per request.
    for (let request = 0; request < 110; request++) await graphql(server, `{ p${request}: wikiPage(id: -5) { id } }`);
    const text = await scrape();
    const paths = new Set(text.split("\n").filter((line) => line.startsWith("graphql_envelop_error_result{")).map((line) => /path="([^"]*)"/.exec(line)?.[1]).filter(Boolean));
    expect(paths.size).toBe(101); // 100 of their own, and "(other)"
    expect(paths).toContain("(other)");
  });

  it("keeps at most 100 GraphQL operation names apart; later names share one label", async () => {
    for (let i = 0; i < 105; i++) await graphql(server, `query Name${i} { wikiPages(limit: 1) { total } }`);
    const text = await scrape();
    const names = new Set(text.split("\n").filter((line) => line.startsWith("http_request_duration_seconds_count")).map((line) => /operation="graphql query ([^"]+)"/.exec(line)?.[1]).filter(Boolean));
    expect(names.size).toBe(100);
    expect(sample(text, "http_request_duration_seconds_count", { operation: "graphql (other)" })).toBeGreaterThanOrEqual(5);
  });

  it("reports process metrics and the database in use", async () => {
    const text = await scrape();
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sample(text, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "hubgraph_database_info", { kind: server.kind })).toBe(1);
    if (server.kind === "postgresql") {
      expect(sample(text, "hubgraph_database_pool_connections", { state: "total" })).toBeGreaterThanOrEqual(1);
      expect(sample(text, "hubgraph_database_pool_connections", { state: "waiting" })).toBe(0);
    } else {
      expect(text).not.toContain("hubgraph_database_pool_connections");
    }
  });

  it("reports each outbox consumer's lag: the age of the oldest committed event it has not taken", async () => {
    const sql = sqlClientOf(server.app.db.prisma);
    await sql.query(Prisma.sql`INSERT INTO outbox_consumers (name) VALUES ('metrics-probe') ON CONFLICT DO NOTHING`);
    await sql.query(
      Prisma.sql`INSERT INTO outbox (type, area, record_id, scope, scope_id, visibility, published, occurred_at) VALUES ('wiki.pageUpdated', 'wiki', 1, 'site', 0, 'public', true, (now() AT TIME ZONE 'UTC') - interval '90 seconds')`,
    );
    expect(sample(await scrape(), "hubgraph_outbox_lag_seconds", { consumer: "metrics-probe" })).toBeGreaterThanOrEqual(90);
    await sql.query(Prisma.sql`UPDATE outbox_consumers SET (xid, event_id) = (SELECT xid, id FROM outbox ORDER BY xid DESC, id DESC LIMIT 1) WHERE name = 'metrics-probe'`);
    expect(sample(await scrape(), "hubgraph_outbox_lag_seconds", { consumer: "metrics-probe" })).toBe(0);
  });

  it("counts the events each consumer took, and the subscriptions open", async () => {
    const before = sample(await scrape(), "hubgraph_outbox_delivered_total", { consumer: "plugins" }) ?? 0;
    const user = await server.user();
    expect((await server.rest("POST", "/wiki", { token: user.token, body: { title: "Counted on delivery", pagetext: "Text.", state: 1 } })).status).toBe(201);
    await server.app.dispatcher.flush();
    const text = await scrape();
    expect(sample(text, "hubgraph_outbox_delivered_total", { consumer: "plugins" })).toBeGreaterThan(before);
    expect(sample(text, "hubgraph_outbox_delivered_total", { consumer: "webhooks" })).toBeGreaterThan(0);
    expect(sample(text, "hubgraph_subscriptions_open")).toBe(0);
  });
});

it("serves /metrics to anyone when METRICS_TOKEN is not set", async () => {
  const server = await startServer({ metricsToken: undefined });
  try {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("process_cpu_seconds_total");
  } finally {
    await server.close();
  }
});

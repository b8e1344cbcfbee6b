// A server killed (SIGKILL) in the middle of webhook deliveries loses none: after a restart every event
// arrives, and an event that arrives twice does so under the same webhook-id. The server as an operator runs
// it (src/main.ts in a process of its own, from source through tsx), on a PostgreSQL database of its own.
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnPostgres } from "../../test/postgres-only.js";
import { createScratchDatabase } from "../../test/scratch-database.js";

const root = path.resolve(import.meta.dirname, "../..");
const PAGES = 40;
const ADMIN_PASSWORD = "crash-test-password";

describeOnPostgres("webhooks across a kill -9", "two server processes in turn on one database that outlives them; PGlite's DATA_DIR would do, but its lock and recovery are another test's", () => {
  const children = new Set<ChildProcess>();
  const received: { eventId: string; webhookId: string }[] = [];
  let receiver: http.Server;
  let receiverUrl = "";
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!);
    // A slow receiver: every request takes 60 ms, so the kill finds deliveries in flight and waiting.
    receiver = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        received.push({ eventId: String((JSON.parse(body) as { data: { id: string } }).data.id), webhookId: String(req.headers["webhook-id"]) });
        setTimeout(() => res.writeHead(200).end("ok"), 60);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await database?.drop();
  });

  /** Starts the server on the scratch database; answers its base URL once it is ready. */
  async function start(): Promise<{ child: ChildProcess; url: string }> {
    const { LOG_LEVEL: _level, METRICS_TOKEN: _token, ...inherited } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: root,
      env: {
        ...inherited,
        DATABASE_URL: database.url,
        HOST: "127.0.0.1",
        PORT: "0",
        ADMIN_USERNAME: "crashadmin",
        ADMIN_PASSWORD,
        RATE_LIMIT: "0",
        OUTBOX_POLL_MS: "100",
        WEBHOOK_ALLOWED_ADDRESSES: "127.0.0.1",
        WEBHOOK_TIMEOUT_MS: "1000",
        WEBHOOK_CONCURRENCY: "2",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    const lines: string[] = [];
    return new Promise((resolve, reject) => {
      let buffered = "";
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        buffered += chunk;
        const complete = buffered.split("\n");
        buffered = complete.pop()!;
        for (const line of complete) {
          lines.push(line);
          if (line.includes("Hubgraph ready")) resolve({ child, url: (JSON.parse(line) as { url: string }).url.replace("localhost", "127.0.0.1") });
        }
      });
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => lines.push(chunk));
      child.once("exit", (code) => reject(new Error(`the server exited (${code}) before it was ready:\n${lines.join("\n")}`)));
    });
  }

  const until = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) => {
    for (const started = Date.now(); !(await condition()); ) {
      if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it("delivers every event after a restart, duplicates only under the same webhook-id", async () => {
    const first = await start();
    const token = await fetch(`${first.url}/api/developer/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "password", username: "crashadmin", password: ADMIN_PASSWORD }),
    }).then(async (response) => ((await response.json()) as { access_token: string }).access_token);
    const created = await fetch(`${first.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query: `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
        variables: { input: { url: receiverUrl, eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 } },
      }),
    }).then(async (response) => (await response.json()) as { data: { createWebhookEndpoint: { endpoint: { id: string } } } });
    const endpointId = created.data.createWebhookEndpoint.endpoint.id;

    const pageIds: number[] = [];
    for (let index = 0; index < PAGES; index++) {
      const response = await fetch(`${first.url}/api/wiki`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ title: `Crash page ${index}`, pagetext: "Text.", state: 1 }),
      });
      expect(response.status).toBe(201);
      pageIds.push(((await response.json()) as { id: number }).id);
    }
    // In the middle: some delivered, the rest in flight or waiting.
    await until(() => received.length >= 8, "the first deliveries");
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    const beforeRestart = new Set(received.map((request) => request.eventId)).size;
    expect(beforeRestart).toBeLessThan(PAGES);

    // Every event of the outbox's, once the server runs again (leases of the killed one expire after the timeout and a margin).
    const second = await start();
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const events = (await client.query<{ id: string; record: number }>(`SELECT id::text AS id, record_id AS record FROM outbox WHERE type = 'wiki.pageCreated' ORDER BY id`)).rows;
      expect(events.map((event) => event.record).sort((a, b) => a - b)).toEqual([...pageIds].sort((a, b) => a - b));
      await until(() => events.every((event) => received.some((request) => request.eventId === event.id)), "every event after the restart", 45_000);
      // Every delivery recorded as delivered, those in flight at the kill too (their leases expired: sent again).
      await until(
        async () => (await client.query(`SELECT 1 FROM webhook_deliveries WHERE state <> 'delivered'`)).rowCount === 0,
        "every delivery recorded as delivered",
      );
      // Duplicates (sent before the kill, not recorded) only under the event's one webhook-id.
      const webhookIds = new Map<string, Set<string>>();
      for (const request of received) webhookIds.set(request.eventId, (webhookIds.get(request.eventId) ?? new Set()).add(request.webhookId));
      for (const event of events) expect([...webhookIds.get(event.id)!]).toEqual([`msg_${event.id}_${endpointId}`]);
      expect(new Set(received.map((request) => request.eventId)).size).toBe(PAGES);
      // The restarted server counted its attempts for /metrics (loopback callers need no token).
      const metrics = await (await fetch(`${second.url}/metrics`)).text();
      expect(Number(/^hubgraph_webhook_attempts_total\{outcome="delivered"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(PAGES - beforeRestart);
      console.log(`webhooks across a kill -9: ${beforeRestart} of ${PAGES} events arrived before the kill, ${received.length - PAGES} arrived twice`);
    } finally {
      await client.end();
      second.child.kill("SIGTERM");
      await new Promise((resolve) => second.child.once("exit", resolve));
    }
    // Two server processes, each compiling through tsx: 23 s beside one suite, past 30 s beside two on two cores.
  }, 120_000);
});

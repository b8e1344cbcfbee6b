// npm run bench:events -- [--subscriptions N] [--seconds S] [--instances 1|2]: how fast committed events reach subscribers
// (issue 14, "Events are fast and bounded"). On a scratch PostgreSQL database (DATABASE_URL names the
// server), the production build serves N open SSE subscriptions: N - 10 follow one page each
// (wikiPageChanged), 10 follow every page created (events). Creates run first flat out for S seconds (the
// create's maximum here), then at half that rate for S seconds, while the 10 all-page subscribers time
// each event's receipt from before and after its commit (the writing transaction's start, and the writer's
// 201).
// Traffic goes to 127.0.0.1 only, bounded in count and time.
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import pg from "pg";
import { productionStartArguments, startChildServer, type ChildServer } from "./servers.js";
import { sseData } from "../test/sse-messages.js";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: { subscriptions: { type: "string", default: "1000" }, seconds: { type: "string", default: "10" }, instances: { type: "string", default: "1" } },
});
const SUBSCRIPTIONS = Number(values.subscriptions);
const SECONDS = Number(values.seconds);
/** 2: two server instances on the database with REDIS_URL (default redis://127.0.0.1:6379); writes go to the first, every subscription to the second. */
const INSTANCES = Number(values.instances);
if (INSTANCES !== 1 && INSTANCES !== 2) {
  console.error("--instances takes 1 or 2");
  process.exit(2);
}
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const WATCHERS = 10;
const ADMIN = { username: "bench-admin", password: "bench-events-password-42" };

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl?.startsWith("postgres")) {
  console.error("DATABASE_URL must name a PostgreSQL server: a scratch database is made there and dropped after.");
  process.exit(2);
}
const database = `hubgraph_bench_events_${process.pid}`;
const admin = new pg.Client({ connectionString: serverUrl });

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);

async function main() {
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(serverUrl!);
  url.pathname = `/${database}`;
  console.log(`Building the server (npm run build)… scratch database ${database}`);
  execFileSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  const started: ChildServer[] = [];
  for (let instance = 1; instance <= INSTANCES; instance++) {
    started.push(
      await startChildServer({
        name: `hubgraph-${instance}`,
        nodeArguments: productionStartArguments(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))),
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: url.toString(),
          RATE_LIMIT: "0",
          LOGIN_RATE_LIMIT: "0",
          // Every subscriber here is one anonymous client on loopback.
          ANONYMOUS_SUBSCRIPTIONS_PER_ADDRESS: "0",
          // The receiver that is down (below) listens on loopback.
          WEBHOOK_ALLOWED_ADDRESSES: "127.0.0.1",
          ADMIN_USERNAME: ADMIN.username,
          ADMIN_PASSWORD: ADMIN.password,
          ...(INSTANCES > 1 ? { REDIS_URL, REDIS_PREFIX: `hubgraph-bench-${process.pid}:` } : {}),
        },
        logPath: path.join(os.tmpdir(), `hubgraph-bench-events-${process.pid}-${instance}.log`),
      }),
    );
  }
  // The writer's instance, and the subscribers' (the same one unless --instances 2).
  const server = started[0]!;
  const subscribed = started.at(-1)!;
  const streams: AbortController[] = [];
  try {
    const token = await signIn(server.url);
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    // The pages the followers follow.
    const pages: number[] = [];
    for (let batch = 0; pages.length < SUBSCRIPTIONS; batch++) {
      const made = await Promise.all(
        Array.from({ length: Math.min(50, SUBSCRIPTIONS - pages.length) }, (_, index) =>
          fetch(`${server.url}/api/wiki`, { method: "POST", headers, body: JSON.stringify({ title: `Followed ${batch}-${index}`, pagetext: "Text.", state: 1 }) }).then((r) => r.json() as Promise<{ id: number }>),
        ),
      );
      pages.push(...made.map((page) => page.id));
    }
    // The subscriptions: followers of one page each (anonymous), and the watchers of every new page.
    // Two clocks per event, both this machine's: its commit lies between them.
    // - from the transaction's start (occurredAt, ms): an upper bound; it adds the create's own time, lock waits included;
    // - from the moment the writer had its 201 (after the commit): a lower bound, which the receipt can even precede.
    const fromStart: number[] = [];
    const receipts = new Map<number, number[]>();
    let counting = false;
    const open = (query: string, variables: Record<string, unknown>, onEvent?: (event: { occurredAt: string; recordId: number }) => void) => {
      const controller = new AbortController();
      streams.push(controller);
      void fetch(`${subscribed.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ query, variables }),
        signal: controller.signal,
      })
        .then(async (response) => {
          const body = response.body as unknown as AsyncIterable<Uint8Array>;
          // Followers of one page are load: their stream is read, not parsed.
          if (!onEvent) for await (const _ of body);
          else {
            for await (const message of sseData<{ data?: { events?: { occurredAt: string; recordId: number } } }>(body)) {
              if (message.data?.events) onEvent(message.data.events);
            }
          }
        })
        .catch(() => {});
    };
    for (let index = 0; index < SUBSCRIPTIONS - WATCHERS; index++) open(`subscription($id: Int!) { wikiPageChanged(id: $id) { id type } }`, { id: pages[index % pages.length] });
    for (let index = 0; index < WATCHERS; index++) {
      open(`subscription { events(types: ["wiki.pageCreated"]) { id recordId occurredAt } }`, {}, (event) => {
        if (!counting) return;
        const now = Date.now();
        fromStart.push(now - Date.parse(`${event.occurredAt}`));
        const seen = receipts.get(event.recordId);
        if (seen) seen.push(now);
        else receipts.set(event.recordId, [now]);
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const rssBefore = subscribed.memory()?.rssMb;

    const create = { method: "POST" as const, headers, body: JSON.stringify({ title: "Bench event [<id>]", pagetext: "Written by the events bench.", state: 1 }) };
    const flatOut = await load(server.url, create, { connections: 20, duration: SECONDS });
    const rate = Math.max(1, Math.floor(flatOut.rate / 2));
    // What the flat-out phase left on its way to the subscribers arrives first, outside the measured window.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    counting = true;
    const half = await load(server.url, create, { connections: 20, duration: SECONDS, overallRate: rate });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    counting = false;
    const fromAnswer: number[] = [];
    for (const [id, answeredAt] of half.answered) for (const at of receipts.get(id) ?? []) fromAnswer.push(at - answeredAt);
    const [upper, lower] = [fromStart, fromAnswer].map((values) => values.sort((a, b) => a - b));
    const expected = half.answered.size * WATCHERS;
    const figures = (values: number[]) => `p50 ${quantile(values, 0.5)} ms, p99 ${quantile(values, 0.99)} ms, max ${values.at(-1)} ms`;
    const where = INSTANCES > 1 ? "on a second instance (Redis between them), the creates on the first" : "on one instance";
    console.log(`\n${SUBSCRIPTIONS} open subscriptions ${where} (${SUBSCRIPTIONS - WATCHERS} following one page each, ${WATCHERS} every new page), load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
    console.log(`creates flat out: ${flatOut.rate.toFixed(0)}/s; at half (${rate}/s asked): ${half.rate.toFixed(0)}/s for ${SECONDS} s, writer's p50 ${half.p50.toFixed(1)} ms`);
    console.log(`commit to receipt, ${upper!.length} receipts (of ${expected}); the commit lies between the two clocks:`);
    console.log(`  from the writer's 201 (after the commit; a lower bound): ${figures(lower!)}`);
    console.log(`  from the transaction's start (before the commit; an upper bound): ${figures(upper!)}`);
    console.log(`server RSS: ${rssBefore?.toFixed(0)} MB with the subscriptions open, ${subscribed.memory()?.rssMb.toFixed(0)} MB after the load`);

    // A webhook receiver that is down must not slow writes: creates flat out with an endpoint for every created
    // page whose receiver answers at once (204), and with its receiver down (it accepts connections and never
    // answers: each delivery holds a sender slot until WEBHOOK_TIMEOUT_MS, then is retried), alternating on the
    // same instance; and once with no endpoint at all, for the cost of the deliveries themselves.
    const answering = http.createServer((_request, response) => response.writeHead(204).end()).listen(0, "127.0.0.1");
    const silent = net.createServer(() => {}).listen(0, "127.0.0.1");
    await Promise.all([answering, silent].map((receiver) => new Promise((resolve) => receiver.once("listening", resolve))));
    const receiverUrl = (receiver: net.Server) => `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`;
    const graphqlAsAdmin = async (query: string, variables: Record<string, unknown>) => {
      const answer = (await (await fetch(`${server.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) })).json()) as {
        data?: Record<string, any>;
        errors?: unknown[];
      };
      if (answer.errors) throw new Error(`the webhook endpoint could not be set up: ${JSON.stringify(answer.errors)}`);
      return answer.data!;
    };
    try {
      const none = (await load(server.url, create, { connections: 20, duration: SECONDS })).rate;
      const created = await graphqlAsAdmin(`mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`, {
        input: { url: receiverUrl(answering), eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 },
      });
      const endpointId = created.createWebhookEndpoint.endpoint.id as string;
      const pointAt = (receiver: net.Server) =>
        graphqlAsAdmin(`mutation($id: ID!, $url: String) { updateWebhookEndpoint(id: $id, input: { url: $url }) { id } }`, { id: endpointId, url: receiverUrl(receiver) });
      const up: number[] = [];
      const down: number[] = [];
      for (let round = 0; round < 2; round++) {
        await pointAt(answering);
        up.push((await load(server.url, create, { connections: 20, duration: SECONDS })).rate);
        await pointAt(silent);
        down.push((await load(server.url, create, { connections: 20, duration: SECONDS })).rate);
      }
      const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
      const rates = (values: number[]) => values.map((value) => value.toFixed(0)).join(", ");
      console.log(
        `webhooks: creates flat out with the receiver down (accepts, never answers) ${rates(down)}/s, answering ${rates(up)}/s (alternating): ` +
          `${(mean(down) / mean(up)).toFixed(2)}× (no endpoint: ${none.toFixed(0)}/s)`,
      );
    } finally {
      answering.close();
      silent.close();
    }
  } finally {
    for (const stream of streams) stream.abort();
    for (const instance of started) await instance.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

async function signIn(base: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${base}/api/developer/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", ...ADMIN }) });
    const body = (await response.json()) as { access_token?: string };
    if (body.access_token) return body.access_token;
    if (attempt > 20) throw new Error(`signing in failed: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * A fixed-time load of creates: answers per second (2xx), the writer's p50, and when each created page's 201
 * arrived (by its id). Flat out, autocannon on `connections` connections; at a fixed rate, one request every
 * 1/rate s on up to `connections` keep-alive connections (autocannon's own rate limit sends each second's
 * quota at the start of the second, a burst every second, not a fixed rate). In a process of its own: the
 * subscribers' receipts are timed on this thread, which the load must not hold up.
 */
function load(
  base: string,
  request: { method: "POST"; headers: Record<string, string>; body: string },
  options: { connections: number; duration: number; overallRate?: number },
): Promise<{ rate: number; p50: number; answered: Map<number, number> }> {
  const source = `
    const http = require("node:http");
    const { autocannon: modulePath, url, request, options } = JSON.parse(process.env.BENCH_LOAD);
    const answered = [];
    const done = (ok, latencies) => {
      latencies.sort((a, b) => a - b);
      process.send({ ok, p50: latencies[Math.floor(latencies.length / 2)] ?? NaN, answered }, () => process.exit(0));
    };
    if (!options.overallRate) {
      const onResponse = (status, body) => {
        if (status !== 201) return;
        try { answered.push([JSON.parse(body).id, Date.now()]); } catch {}
      };
      require(modulePath)({ url, ...request, idReplacement: true, ...options, requests: [{ ...request, onResponse }] }, (error, result) => {
        if (error) return process.send({ error: String(error) }, () => process.exit(1));
        done(result["2xx"], [result.latency.p50]);
      });
    } else {
      const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
      const latencies = [];
      let ok = 0, sent = 0, open = 0;
      const started = performance.now();
      const send = () => {
        const at = performance.now();
        const body = request.body.replace("[<id>]", "[" + Math.random().toString(36).slice(2) + "]");
        open++;
        const req = http.request(url, { method: request.method, headers: { ...request.headers, "content-length": Buffer.byteLength(body) }, agent }, (res) => {
          const chunks = [];
          res.on("data", (chunk) => chunks.push(chunk));
          res.on("end", () => {
            open--;
            latencies.push(performance.now() - at);
            if (res.statusCode === 201) {
              ok++;
              try { answered.push([JSON.parse(Buffer.concat(chunks).toString()).id, Date.now()]); } catch {}
            }
          });
        });
        req.on("error", () => open--);
        req.end(body);
      };
      const tick = () => {
        const elapsed = (performance.now() - started) / 1000;
        if (elapsed >= options.duration) {
          const wait = () => (open ? setTimeout(wait, 10) : done(ok, latencies));
          return wait();
        }
        while (sent < Math.floor(elapsed * options.overallRate) + 1) { sent++; send(); }
        setTimeout(tick, 1);
      };
      tick();
    }`;
  const BENCH_LOAD = JSON.stringify({ autocannon: require.resolve("autocannon"), url: `${base}/api/wiki`, request, options });
  const child = spawn(process.execPath, ["-e", source], { env: { ...process.env, BENCH_LOAD }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => code && reject(new Error(`the load process exited with ${code}`)));
    child.once("message", (message: { error?: string; ok: number; p50: number; answered: [number, number][] }) => {
      if (message.error) return reject(new Error(message.error));
      resolve({ rate: message.ok / options.duration, p50: message.p50, answered: new Map(message.answered) });
    });
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

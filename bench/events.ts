// npm run bench:events -- [--subscriptions N] [--seconds S]: how fast committed events reach subscribers
// (issue 14, "Events are fast and bounded"). On a scratch PostgreSQL database (DATABASE_URL names the
// server), the production build serves N open SSE subscriptions: N - 10 follow one page each
// (wikiPageChanged), 10 follow every page created (events). Creates run first flat out for S seconds (the
// create's maximum here), then at half that rate for S seconds, while the 10 all-page subscribers time
// each event from its commit (the event's occurredAt, the writing transaction's time) to its receipt.
// Traffic goes to 127.0.0.1 only, bounded in count and time.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { productionStartArguments, startChildServer } from "./servers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { subscriptions: { type: "string", default: "1000" }, seconds: { type: "string", default: "10" } } });
const SUBSCRIPTIONS = Number(values.subscriptions);
const SECONDS = Number(values.seconds);
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
  const logPath = path.join(os.tmpdir(), `hubgraph-bench-events-${process.pid}.log`);
  const server = await startChildServer({
    name: "hubgraph",
    nodeArguments: productionStartArguments(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))),
    cwd: root,
    env: { ...process.env, NODE_ENV: "production", DATABASE_URL: url.toString(), RATE_LIMIT: "0", LOGIN_RATE_LIMIT: "0", ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
    logPath,
  });
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
    const latencies: number[] = [];
    let counting = false;
    const open = (query: string, variables: Record<string, unknown>, onEvent?: (event: { occurredAt: string }) => void) => {
      const controller = new AbortController();
      streams.push(controller);
      void fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ query, variables }),
        signal: controller.signal,
      })
        .then(async (response) => {
          const decoder = new TextDecoder();
          let buffered = "";
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            if (!onEvent) continue;
            buffered += decoder.decode(chunk, { stream: true });
            let end: number;
            while ((end = buffered.indexOf("\n\n")) >= 0) {
              const data = buffered.slice(0, end).split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5)).join("");
              buffered = buffered.slice(end + 2);
              const event = data.trim() ? (JSON.parse(data) as { data?: { events?: { occurredAt: string } } }).data?.events : undefined;
              if (event) onEvent(event);
            }
          }
        })
        .catch(() => {});
    };
    for (let index = 0; index < SUBSCRIPTIONS - WATCHERS; index++) open(`subscription($id: Int!) { wikiPageChanged(id: $id) { id type } }`, { id: pages[index % pages.length] });
    for (let index = 0; index < WATCHERS; index++) {
      open(`subscription { events(types: ["wiki.pageCreated"]) { id occurredAt } }`, {}, (event) => {
        // occurredAt is the writing transaction's time (ms, UTC): commit to receipt, plus the transaction's own few ms.
        if (counting) latencies.push(Date.now() - Date.parse(`${event.occurredAt}`));
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const rssBefore = server.memory()?.rssMb;

    const create = { method: "POST" as const, headers, body: JSON.stringify({ title: "Bench event [<id>]", pagetext: "Written by the events bench.", state: 1 }) };
    const flatOut = await load(server.url, create, { connections: 20, duration: SECONDS });
    const rate = Math.max(1, Math.floor(flatOut / 2));
    // What the flat-out phase left on its way to the subscribers arrives first, outside the measured window.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    counting = true;
    const half = await load(server.url, create, { connections: 20, duration: SECONDS, overallRate: rate });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    counting = false;
    latencies.sort((a, b) => a - b);
    const expected = Math.round(half * SECONDS) * WATCHERS;
    console.log(`\n${SUBSCRIPTIONS} open subscriptions (${SUBSCRIPTIONS - WATCHERS} following one page each, ${WATCHERS} every new page), load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
    console.log(`creates flat out: ${flatOut.toFixed(0)}/s; at half (${rate}/s asked): ${half.toFixed(0)}/s for ${SECONDS} s`);
    console.log(`commit to receipt, ${latencies.length} receipts (of about ${expected}): p50 ${quantile(latencies, 0.5)} ms, p99 ${quantile(latencies, 0.99)} ms, max ${latencies.at(-1)} ms`);
    console.log(`server RSS: ${rssBefore?.toFixed(0)} MB with the subscriptions open, ${server.memory()?.rssMb.toFixed(0)} MB after the load`);
  } finally {
    for (const stream of streams) stream.abort();
    await server.stop();
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

/** Answers per second of a fixed-time load (2xx only). */
function load(base: string, request: { method: "POST"; headers: Record<string, string>; body: string }, options: { connections: number; duration: number; overallRate?: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    // In a worker thread: the subscribers' receipts are timed on this thread, which the load must not hold up.
    autocannon({ url: `${base}/api/wiki`, ...request, idReplacement: true, workers: 1, ...options }, (error, result) => {
      if (error) return reject(error);
      resolve(result["2xx"] / options.duration);
    });
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// npm run bench: latency and throughput of the wiki list and read through REST and GraphQL, on loopback,
// against in-memory PGlite (or DATABASE_URL). Bounded: a fixed number of requests per case.
import type { AddressInfo } from "node:net";
import { loadConfig } from "../src/config.js";
import { createApp } from "../src/app.js";
import { silentLogger } from "../src/observability/logger.js";
import { createScratchDatabase } from "../test/scratch-database.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const PAGES = 200;

const config = loadConfig();
// PostgreSQL runs go to a scratch database, dropped at the end, never the one DATABASE_URL names.
const scratch = config.databaseUrl ? await createScratchDatabase(config.databaseUrl) : undefined;
const { app, db, close } = await createApp({ config: { ...config, admin: undefined, databaseUrl: scratch?.url }, inMemory: true, logger: silentLogger() });
const author = await db.prisma.user.create({ data: { username: "bench", email: "bench@example.test", name: "Bench", passwordHash: "-" } });
for (let index = 0; index < PAGES; index++) {
  const page = await db.prisma.wikiPage.create({
    data: { title: `Page ${index}`, pagename: `Page${index}`, state: 1, createdById: author.id },
  });
  const revision = await db.prisma.wikiRevision.create({
    data: { pageId: page.id, version: 1, pagetext: `Text of page ${index} `.repeat(20), length: 400, createdById: author.id },
  });
  await db.prisma.wikiPage.update({ where: { id: page.id }, data: { currentRevisionId: revision.id } });
}

const server = app.listen(0, "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const listQuery = JSON.stringify({
  query: "{ wikiPages(limit: 25) { total items { id title pagename revisionCount createdBy { name } } } }",
});
const cases: [string, () => Promise<Response>][] = [
  ["REST    GET /api/wiki/list (25)", () => fetch(`${base}/api/wiki/list`)],
  ["GraphQL wikiPages(limit: 25)   ", () => fetch(`${base}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: listQuery })],
  ["REST    GET /api/wiki/{id}     ", () => fetch(`${base}/api/wiki/${1 + Math.floor(Math.random() * PAGES)}`)],
];

console.log(`${db.kind}, ${PAGES} pages, ${REQUESTS} requests per case, ${CONCURRENCY} in flight`);
for (const [name, send] of cases) {
  for (let warm = 0; warm < 20; warm++) await (await send()).arrayBuffer();
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const t0 = performance.now();
        const response = await send();
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
  console.log(`${name}  ${(latencies.length / seconds).toFixed(0).padStart(5)} req/s  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms`);
}

server.close();
await close();
await scratch?.drop();

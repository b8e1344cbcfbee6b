// npm run bench -- [--rows N] [--duration S] [--connections C] [--only case,…] [--pglite]
//
// Seeds a scratch database (PostgreSQL from DATABASE_URL, dropped at the end, also on Ctrl-C or a
// failure; or with --pglite an embedded PGlite data dir in a temporary folder), starts the Hubgraph
// server and a bare node:http + pg server as child processes, loads each case of bench/cases.ts with
// autocannon, and prints one table with the targets of issue 6. See docs/performance.md.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { openDatabase, openPGlite } from "../src/db/database.js";
import type { SqlRunner } from "../src/db/migrate.js";
import { hashPassword } from "../src/users/passwords.js";
import { createScratchDatabase } from "../test/scratch-database.js";
import { BENCH_ADMIN, BENCH_MEMBER, BENCH_USER, BENCH_WRITER, seed, visibleWikiIds, type SeedSummary } from "./seed.js";
import { forumFixture } from "./forum-fixture.js";
import { captureStatements } from "./capture.js";
import { RSS_LIMIT_MB, capturedRequests, selectCases, type Fixture, type RequestSpec } from "./cases.js";
import { combine, measure, probe, stopLoad, type Measurement, type Slice } from "./load.js";
import { installedPeer, productionStartArguments, startChildServer, type ChildServer } from "./servers.js";
import { againstComparison, againstHeading, againstLine, againstTable, judge, markdownReport, markdownTable, summarize, type CaseResult, type RunReport } from "./report.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const SCRATCH_PREFIX = "hubgraph_bench_";
/** Scratch databases kept on purpose (--keep): not reported as leftovers of an interrupted run. */
const KEPT_PREFIX = "hubgraph_bench_kept_";

/**
 * What a kept database was seeded with, stored as its COMMENT (no table in the app's schema): the hash of
 * bench/seed.ts (any change to the seeding invalidates it) and the row counts. Migrations are not part of
 * the key: they are applied to a reused database like to a new one.
 */
interface SeedMark {
  key: string;
  description: string;
  summary: SeedSummary;
}
async function seedMark(size: { wikiPages: number; blogEntries: number; forumPosts: number; activityRows: number }): Promise<Omit<SeedMark, "summary">> {
  const source = await fs.promises.readFile(fileURLToPath(new URL("./seed.ts", import.meta.url)));
  const seedVersion = crypto.createHash("sha256").update(source).digest("hex").slice(0, 12);
  const description = `bench/seed.ts ${seedVersion}, ${size.wikiPages} wiki pages, ${size.blogEntries} blog entries, ${size.forumPosts} forum posts, ${size.activityRows} activity entries`;
  return { key: description, description };
}
/** undefined: no such database; null: it exists without a seed mark. */
async function readSeedMark(admin: pg.Client, name: string): Promise<SeedMark | null | undefined> {
  const { rows } = await admin.query(`SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = $1`, [name]);
  if (!rows.length) return undefined;
  try {
    const mark = JSON.parse(rows[0].mark ?? "") as SeedMark;
    return typeof mark.key === "string" && mark.summary ? mark : null;
  } catch {
    return null;
  }
}
function databaseUrlFor(serverUrl: string, name: string) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
async function createNamedDatabase(serverUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return { name, url: databaseUrlFor(serverUrl, name), drop: () => dropDatabase(serverUrl, name) };
}

const usage = `npm run bench -- [options]
  --rows N          wiki pages to seed (default 10000); as many blog entries unless --blog-rows
  --blog-rows N     blog entries to seed
  --forum-posts N   forum posts to seed (default 10000), a tenth of them threads' starters, over 100
                    categories (issue 15's scale: 1000000)
  --activity-rows N activity entries to seed (default 10000), 2 % of them sent to the feed's member
                    (bench-member, in 50 groups) or their groups (issue 15's scale: 1000000)
  --duration S      seconds of load per case (default 5)
  --warmup S        seconds of unmeasured load on a case before its first window (default 5; longer
                    while the first round of answers is still out); 1 s before each later window
  --connections C   concurrent connections (default 20)
  --rounds R        a case with a bare counterpart is measured in R windows, each after one of the bare
                    case, so its ratio compares the same minutes of a machine whose speed drifts (default 3)
  --only a,b*       only these cases (a trailing * matches a prefix), with the bare cases their ratios need;
                    "events" is the events measurement (bench/events.ts, PostgreSQL only), which runs last:
                    1,000 subscriptions at half the create's maximum, on one instance and on two with Redis
  --pglite          the Hubgraph server on an embedded PGlite data dir instead of DATABASE_URL
  --out DIR         where the result files go (default bench/results)
  --keep            keep the seeded scratch database (PostgreSQL) and print its name, for --reuse
  --reuse NAME      use the database NAME on DATABASE_URL's server: seeded by an earlier --keep run with
                    the same seed version and row counts (seeding is skipped; the app's migrations are
                    applied), or created, seeded and kept if it does not exist yet
  --against DIR     another build of Hubgraph (a checkout, e.g. a git worktree of an earlier commit, with
                    its node_modules): it is built, started on a copy of the seeded database, and each
                    Hubgraph case is measured on it and on this build in alternating windows (--rounds of
                    each, old new new old …), instead of beside the bare case; PostgreSQL only
  --processes P     with --against: each Hubgraph case is measured on P new pairs of server processes in
                    turn (each pair started for the case, warmed, given its --rounds windows of
                    --duration/(--rounds × P) s, stopped), so a ratio is not one draw of each build's
                    process (default 1: the pair started for the run serves every case)
DATABASE_URL must name a PostgreSQL server (any database; a scratch one is created and dropped) unless --pglite.`;

const { values: args } = parseCommandLine({
  options: {
    rows: { type: "string", default: "10000" },
    "blog-rows": { type: "string" },
    "forum-posts": { type: "string", default: "10000" },
    "activity-rows": { type: "string", default: "10000" },
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "5" },
    connections: { type: "string", default: "20" },
    rounds: { type: "string", default: "3" },
    processes: { type: "string", default: "1" },
    only: { type: "string", multiple: true, default: [] },
    pglite: { type: "boolean", default: false },
    out: { type: "string", default: path.join(root, "bench", "results") },
    keep: { type: "boolean", default: false },
    reuse: { type: "string" },
    against: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
function parseCommandLine<T extends NonNullable<Parameters<typeof parseArgs>[0]>>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const whole = (name: string, raw: string, minimum: number) => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    console.error(`--${name} must be a whole number of at least ${minimum}, got "${raw}"\n\n${usage}`);
    process.exit(2);
  }
  return value;
};
const options = {
  wikiPages: whole("rows", args.rows, 100),
  blogEntries: whole("blog-rows", args["blog-rows"] ?? args.rows, 100),
  forumPosts: whole("forum-posts", args["forum-posts"], 0),
  activityRows: whole("activity-rows", args["activity-rows"], 0),
  seconds: whole("duration", args.duration, 1),
  warmupSeconds: whole("warmup", args.warmup, 0),
  connections: whole("connections", args.connections, 1),
  rounds: whole("rounds", args.rounds, 1),
  processes: whole("processes", args.processes, 1),
  mode: args.pglite ? ("pglite" as const) : ("postgresql" as const),
  reuse: args.reuse,
  keep: args.keep || args.reuse !== undefined,
  against: args.against === undefined ? undefined : path.resolve(args.against),
  only: args.only.flatMap((value) => value.split(",")).map((value) => value.trim()).filter(Boolean),
};
/** The events measurement (bench/events.ts): with every case, or when `--only` names `events`; on PostgreSQL. */
const eventsRun = options.mode === "postgresql" && (!options.only.length || options.only.includes("events"));
/** `--only events` alone: no load case at all. */
const casesRun = !(options.only.length && options.only.every((pattern) => pattern === "events"));
options.only = options.only.filter((pattern) => pattern !== "events");
if (options.processes > 1 && options.against === undefined) {
  console.error(`--processes is for --against: it starts new pairs of the two builds' servers.\n\n${usage}`);
  process.exit(2);
}
if (options.rounds * options.processes > options.seconds) {
  const windows = options.processes > 1 ? `--rounds (${options.rounds}) × --processes (${options.processes})` : `--rounds (${options.rounds})`;
  console.error(`${windows} must not exceed --duration (${options.seconds}): each window is at least a second.\n\n${usage}`);
  process.exit(2);
}
const databaseUrl = process.env.DATABASE_URL;
if (options.mode === "postgresql" && !databaseUrl?.startsWith("postgres")) {
  console.error(`DATABASE_URL must be a postgres:// URL (or pass --pglite).\n\n${usage}`);
  process.exit(2);
}
if (options.reuse !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.reuse)) {
  console.error(`--reuse takes a database name of lower-case letters, digits and underscores, got "${options.reuse}"`);
  process.exit(2);
}
if (options.keep && options.mode === "pglite") {
  console.error(`--keep and --reuse are for PostgreSQL (DATABASE_URL); a PGlite run seeds a temporary data dir.`);
  process.exit(2);
}
if (options.against !== undefined) {
  if (options.mode === "pglite") {
    console.error(`--against is for PostgreSQL (DATABASE_URL): the other build runs on a copy of the seeded database.`);
    process.exit(2);
  }
  if (!fs.existsSync(path.join(options.against, "package.json"))) {
    console.error(`--against ${options.against}: no package.json there; it takes the folder of another Hubgraph checkout.`);
    process.exit(2);
  }
}
const selected = (() => {
  try {
    return selectCases(options.only, options.mode);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
})();

// Everything that must be undone, undone in reverse order at the end, on a failure and on Ctrl-C.
const undo: { label: string; run: () => Promise<unknown> }[] = [];
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    stopLoad();
    for (let step = undo.pop(); step; step = undo.pop()) {
      await step.run().catch((error: unknown) => console.error(`cleanup: ${step!.label} failed:`, (error as Error).message));
    }
  })();
  return cleaning;
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (cleaning) return; // already on the way out; a second Ctrl-C must not skip dropping the database
    console.error(`\n${signal}: stopping the servers and removing the scratch database…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

const log = (line: string) => console.log(line);

async function main(): Promise<number> {
  fs.mkdirSync(args.out, { recursive: true });
  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const base = path.join(args.out, `${date.replace(/:/g, "-")}-${options.mode}-${options.wikiPages}`);
  const loadAverageBefore = os.loadavg();
  if (selected.some((benchCase) => benchCase.server === "hubgraph")) {
    // What `npm start` runs first (its prestart), so the measured server is the current source compiled.
    log("Building the server (npm run build)…");
    execFileSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
    if (options.against) {
      log(`Building the other server (npm run build in ${options.against})…`);
      execFileSync("npm", ["run", "--silent", "build"], { cwd: options.against, stdio: ["ignore", "inherit", "inherit"] });
    }
  }

  // 1. A database with the app's schema (its own migrations), seeded.
  let serverEnv: NodeJS.ProcessEnv;
  let againstEnv: NodeJS.ProcessEnv | undefined;
  let seeded: SeedSummary;
  let databaseVersion: string;
  let fixtureIds: Pick<Fixture, "anonymousReadIds" | "userReadIds" | "forum">;
  const passwordHash = await hashPassword(BENCH_USER.password);
  let keepScratch = false;
  const describe = async (db: SqlRunner, summary: SeedSummary) => {
    seeded = summary;
    databaseVersion = String((await db.query(`SHOW server_version`))[0]!.server_version);
    fixtureIds = { anonymousReadIds: await visibleWikiIds(db, "anonymous"), userReadIds: await visibleWikiIds(db, "bench-user"), forum: await forumFixture(db) };
  };
  const seedAndDescribe = async (db: SqlRunner) => {
    log(`Seeding ${options.wikiPages} wiki pages and ${options.blogEntries} blog entries…`);
    const summary = await seed(db, { wikiPages: options.wikiPages, blogEntries: options.blogEntries, forumPosts: options.forumPosts, activityRows: options.activityRows }, passwordHash, log);
    log(`  done in ${summary.seconds.toFixed(1)} s (${summary.wikiRevisions} revisions)`);
    await describe(db, summary);
  };

  if (options.mode === "postgresql") {
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const leftovers = (await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE '${SCRATCH_PREFIX}%' AND datname NOT LIKE '${KEPT_PREFIX}%'`)).rows.map((row) => row.datname);
    const existing = options.reuse === undefined ? undefined : await readSeedMark(admin, options.reuse);
    await admin.end();
    if (leftovers.length) {
      console.warn(`Warning: databases left by an interrupted bench run: ${leftovers.join(", ")} (DROP DATABASE … WITH (FORCE) once no bench runs).`);
    }
    const wanted = await seedMark({ wikiPages: options.wikiPages, blogEntries: options.blogEntries, forumPosts: options.forumPosts, activityRows: options.activityRows });
    let scratch: { name: string; url: string };
    let reused: SeedMark | undefined;
    if (existing === undefined) {
      const created = options.reuse === undefined
        ? await createScratchDatabase(databaseUrl!, { prefix: options.keep ? KEPT_PREFIX : SCRATCH_PREFIX })
        : await createNamedDatabase(databaseUrl!, options.reuse);
      scratch = created;
      // Until it is seeded and marked, a kept database is dropped like any scratch one on a failure.
      undo.push({ label: `drop database ${created.name}`, run: () => (keepScratch ? Promise.resolve() : created.drop()) });
    } else if (existing === null || existing.key !== wanted.key) {
      throw new Error(
        `--reuse ${options.reuse}: that database ${existing === null ? "was not seeded by the bench (no seed mark)" : `holds another seed (${existing.description}; this run wants ${wanted.description})`}; ` +
          `pick another name, or drop it (DROP DATABASE ${options.reuse} WITH (FORCE)).`,
      );
    } else {
      scratch = { name: options.reuse!, url: databaseUrlFor(databaseUrl!, options.reuse!) };
      reused = existing;
    }
    log(`${reused ? "Reusing" : "Scratch"} database ${scratch.name}; applying the app's migrations…`);
    await (await openDatabase({ databaseUrl: scratch.url })).close();
    const client = new pg.Client({ connectionString: scratch.url });
    client.on("error", () => {}); // terminated by the drop on Ctrl-C; the seeding query reports it
    await client.connect();
    try {
      const runner: SqlRunner = {
        exec: async (sql) => void (await client.query(sql)),
        query: async (sql, params) => (await client.query(sql, params)).rows,
      };
      if (reused) {
        log(`  seeded earlier (${reused.description}, ${reused.summary.seconds.toFixed(1)} s); not seeding again`);
        await describe(runner, reused.summary);
      } else {
        await seedAndDescribe(runner);
        if (options.keep) {
          await client.query(`COMMENT ON DATABASE ${scratch.name} IS ${pg.escapeLiteral(JSON.stringify({ ...wanted, summary: seeded! }))}`);
          keepScratch = true;
        }
      }
    } finally {
      await client.end().catch(() => {});
    }
    if (keepScratch) log(`  kept after the run: --reuse ${scratch.name} (DROP DATABASE ${scratch.name} WITH (FORCE) to remove it)`);
    serverEnv = { DATABASE_URL: scratch.url };
    if (options.against) {
      // The other build gets the same rows (and ids, so the same fixture) in a database of its own: its writes
      // and caches stay apart from this build's. Its own migrations are applied when it starts; those of this
      // build it does not know stay (a migration only adds).
      const copyName = `${SCRATCH_PREFIX}against_${crypto.randomBytes(4).toString("hex")}`;
      // Dropped on the way out whatever happens, a Ctrl-C during the copy included (IF EXISTS).
      undo.push({ label: `drop database ${copyName}`, run: () => dropDatabase(databaseUrl!, copyName) });
      againstEnv = { DATABASE_URL: await copyDatabase(databaseUrl!, scratch.name, copyName) };
      log(`  the other build's copy: ${copyName}`);
    }
  } else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-bench-"));
    undo.push({ label: `remove ${dataDir}`, run: () => fs.promises.rm(dataDir, { recursive: true, force: true }) });
    log(`PGlite data dir ${dataDir}; applying the app's migrations…`);
    await (await openDatabase({ dataDir })).close();
    // The folder layout openDatabase uses: <DATA_DIR>/pglite.
    const pglite = await openPGlite(path.join(dataDir, "pglite"));
    try {
      await seedAndDescribe({
        exec: async (sql) => void (await pglite.exec(sql)),
        query: async (sql, params) => (await pglite.query(sql, params)).rows as Record<string, unknown>[],
      });
    } finally {
      await pglite.close();
    }
    serverEnv = { DATA_DIR: dataDir };
  }

  // 2. The servers, each a process of its own. The Hubgraph server starts as `npm start` starts it
  //    (NODE_ENV=production, dist/ built at the start of the run, the start script's node flags); only the
  //    request rate limit is off, which would otherwise answer 429.
  const { DATABASE_URL: _ignored, DATA_DIR: _ignoredToo, ...inherited } = process.env;
  const startServer = async (name: string, nodeArguments: string[], env: NodeJS.ProcessEnv, cwd = root) => {
    const server = await startChildServer({ name, nodeArguments, cwd, env: { ...inherited, NODE_ENV: "production", ...env }, logPath: `${base}-${name}.log` });
    undo.push({ label: `stop ${name}`, run: () => server.stop() });
    return server;
  };
  // The bench's tokens are signed in once, at the start: they last the day, however long a run with
  // --processes takes. With --processes, the pair started for the run answers only each case's first probe
  // and does not look for other instances' events (OUTBOX_POLL_MS=0, no Redis to wake it), so it takes no
  // share of the delivery work of the pair being measured, which writes into the same database.
  const startArguments = (folder: string) => productionStartArguments(JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8")));
  const hubgraphArguments = startArguments(root);
  const againstArguments = options.against === undefined ? [] : startArguments(options.against);
  const hubgraphEnv = (env: NodeJS.ProcessEnv, pair: boolean) => ({
    ...env,
    RATE_LIMIT: "0",
    ACCESS_TOKEN_TTL: "86400",
    ...(options.processes > 1 && !pair ? { OUTBOX_POLL_MS: "0", REDIS_URL: undefined } : {}),
  });
  const startHubgraph = (name: string, pair = false) => startServer(name, hubgraphArguments, hubgraphEnv(serverEnv, pair));
  const startAgainst = (name: string, pair = false) => startServer(name, againstArguments, hubgraphEnv(againstEnv!, pair), options.against);
  const servers: Partial<Record<"hubgraph" | "bare" | "postgraphile", ChildServer>> = {};
  let against: ChildServer | undefined;
  const capturedFile = `${base}-captured.json`;
  if (selected.some((benchCase) => benchCase.server === "bare")) {
    servers.bare = await startServer("bare", ["--import", "tsx", "bench/bare-server.ts"], { ...serverEnv, BENCH_CAPTURED: capturedFile });
  }
  if (selected.some((benchCase) => benchCase.server === "postgraphile")) {
    servers.postgraphile = await startServer("postgraphile", [installedPeer(root, "postgraphile")], serverEnv);
  }
  if (selected.some((benchCase) => benchCase.server === "hubgraph")) {
    servers.hubgraph = await startHubgraph("hubgraph");
    if (options.against && againstEnv) against = await startAgainst("against");
  }
  log(`Servers: ${[...Object.values(servers), ...(against ? [against] : [])].map((server) => `${server.name} ${server.url} (pid ${server.pid}, log ${path.relative(root, server.logPath)})`).join(", ")}`);

  const signIn = async (username: string, on = servers.hubgraph) => {
    if (!on) return "";
    const response = await fetch(`${on.url}/api/developer/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "password", username, password: BENCH_USER.password }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!response.ok || !body.access_token) throw new Error(`signing in as ${username} failed: HTTP ${response.status} ${JSON.stringify(body)}`);
    return body.access_token;
  };
  const [token, adminToken, writerToken] = [await signIn(BENCH_USER.username), await signIn(BENCH_ADMIN.username), await signIn(BENCH_WRITER.username)];
  const memberToken = fixtureIds!.forum ? await signIn(BENCH_MEMBER.username) : "";
  const fixture: Fixture = { token, adminToken, writerToken, memberToken, ...fixtureIds! };
  // The other build's own tokens (its own database); the rows and ids are the same.
  const againstFixture: Fixture | undefined = against && {
    ...fixture,
    token: await signIn(BENCH_USER.username, against),
    adminToken: await signIn(BENCH_ADMIN.username, against),
    writerToken: await signIn(BENCH_WRITER.username, against),
    memberToken: fixtureIds!.forum ? await signIn(BENCH_MEMBER.username, against) : "",
  };
  // The statements our app sends for the forum and feed cases, for their bare twins (read by the bare server at its first such request).
  if (servers.bare && serverEnv.DATABASE_URL && fixture.forum && selected.some((benchCase) => capturedRequests(fixture).some((request) => benchCase.name === `bare-${request.name}`))) {
    const captured = await captureStatements(serverEnv.DATABASE_URL, BENCH_USER.password, capturedRequests(fixture), capturedFile);
    log(`Captured our statements for the bare handlers: ${Object.entries(captured).map(([name, statements]) => `${name} ${statements.length}`).join(", ")}`);
  }

  // 3. The cases, one after the other.
  log(
    `\n${selected.length} cases, ${options.connections} connections, ${options.seconds} s each after ${options.warmupSeconds} s of warm-up on it` +
      (options.rounds > 1 ? ` (in ${options.rounds} windows beside the bare case's where there is one):` : ":"),
  );
  const measured = new Map<string, Measurement>();
  const results: CaseResult[] = [];
  for (const benchCase of selected) {
    const server = servers[benchCase.server]!;
    const spec = benchCase.request(fixture);
    const result: CaseResult = { name: benchCase.name, description: benchCase.description, server: benchCase.server, bare: benchCase.bare, verdicts: [] };
    results.push(result);
    result.problem = await wrongAnswer(server, benchCase, spec, fixture);
    if (result.problem) {
      log(`  ${benchCase.name}: WRONG ANSWER, not measured: ${result.problem}`);
      continue;
    }
    // A case's first window comes after --warmup seconds of its load: V8 optimises the code a case runs
    // over its first seconds (a GraphQL list measured after 1 s took 2.3 ms of server CPU per answer, after
    // 5 s 1.0-1.3 ms). Later windows, on code already warm, wait LATER_WINDOW_WARMUP_SECONDS for their connections.
    const window = (on: ChildServer, request: RequestSpec, seconds: number, first: boolean) =>
      measure(on.url, request, {
        connections: options.connections,
        seconds,
        warmupSeconds: first ? options.warmupSeconds : Math.min(options.warmupSeconds, LATER_WINDOW_WARMUP_SECONDS),
        serverCpuMs: () => on.cpuMs(),
      });
    // Against its bare case in alternating windows when there is one: the ratio then compares the same
    // minutes, where one window after the other would compare a machine that may have slowed down since
    // (a shared VM's speed drifts by 2× within minutes).
    // Only a bare case that answered right (its own row was measured) is a yardstick.
    const bareCase = benchCase.server === "bare" || !measured.has(benchCase.bare ?? "") ? undefined : selected.find((other) => other.name === benchCase.bare);
    let measurement: Measurement;
    let alongside: Measurement | undefined;
    if (against && againstFixture && benchCase.server === "hubgraph") {
      // Against the other build in alternating windows (old new new old old new for three rounds): each
      // window of one build compares with the other's in the same minutes.
      const againstSpec = benchCase.request(againstFixture);
      const againstProblem = await wrongAnswer(against, benchCase, againstSpec, againstFixture);
      if (againstProblem) {
        result.problem = `the other build (--against) answered wrongly: ${againstProblem}`;
        log(`  ${benchCase.name}: WRONG ANSWER from the other build, not measured: ${againstProblem}`);
        continue;
      }
      const own: Slice[] = [];
      const other: Slice[] = [];
      // A process keeps a speed of its own for its life (two copies of one build measured 0.93–1.12 apart
      // per case, docs/performance.md): with --processes P, each case runs on P new pairs of processes.
      const seconds = options.seconds / options.rounds / options.processes;
      const windowOn = async (on: ChildServer, request: RequestSpec, into: Slice[], first: boolean) => {
        into.push(await window(on, request, seconds, first));
        await settle(on, request, into.at(-1)!.measurement);
      };
      for (let pair = 0; pair < options.processes; pair++) {
        // One after the other: a start that fails then leaves no other start running unregistered.
        const otherOn = options.processes === 1 ? against : await startAgainst(`against-${benchCase.name}-${pair}`, true);
        const ownOn = options.processes === 1 ? server : await startHubgraph(`hubgraph-${benchCase.name}-${pair}`, true);
        const [otherBefore, ownBefore] = [other.length, own.length];
        const otherWindow = () => windowOn(otherOn, againstSpec, other, other.length === otherBefore);
        const ownWindow = () => windowOn(ownOn, spec, own, own.length === ownBefore);
        // Odd pairs begin with this build: the process started last (this build's) does not always wait first.
        await (pair % 2 === 0 ? alternating(options.rounds, otherWindow, ownWindow) : alternating(options.rounds, ownWindow, otherWindow));
        if (options.processes > 1) {
          await otherOn.stop();
          await ownOn.stop();
        }
      }
      measurement = combine(own);
      result.against = againstComparison(own, other, options.rounds);
      // A build answering errors under load answers fast: its rate is no yardstick.
      const otherFaults = other.reduce((sum, slice) => sum + slice.measurement.non2xx + slice.measurement.failures, 0);
      if (otherFaults) {
        result.problem = `the other build (--against) answered ${otherFaults} non-2xx or failed requests under load`;
        log(`  ${benchCase.name}: ${result.problem}; its comparison is not a result`);
      }
    } else if (bareCase && servers.bare) {
      const bareSpec = bareCase.request(fixture);
      const own: Slice[] = [];
      const bare: Slice[] = [];
      const bareWindow = async () => {
        // The bare case ran before (its own row, or the previous case's rounds): warm.
        bare.push(await window(servers.bare!, bareSpec, options.seconds / options.rounds, false));
        await settle(servers.bare!, bareSpec, bare.at(-1)!.measurement);
      };
      const ownWindow = async () => {
        own.push(await window(server, spec, options.seconds / options.rounds, own.length === 0));
        await settle(server, spec, own.at(-1)!.measurement);
      };
      await alternating(options.rounds, bareWindow, ownWindow);
      measurement = combine(own);
      alongside = combine(bare);
      result.bareAlongside = alongside.requestsPerSecond;
      if (alongside.non2xx || alongside.failures) {
        log(`  ${benchCase.name}: the bare case answered ${alongside.non2xx} non-2xx and ${alongside.failures} failures alongside it; the ratio is to its own row instead`);
        alongside = undefined;
        result.bareAlongside = undefined;
      }
    } else {
      measurement = (await window(server, spec, options.seconds, true)).measurement;
      await settle(server, spec, measurement);
    }
    measured.set(benchCase.name, measurement);
    result.measurement = measurement;
    Object.assign(result, judge(benchCase, measurement, alongside ?? (benchCase.bare ? measured.get(benchCase.bare) : undefined), options.wikiPages, measured));
    log(
      `  ${benchCase.name.padEnd(18)} ${measurement.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${measurement.p50.toFixed(1).padStart(6)} ms  ` +
        `p99 ${measurement.p99.toFixed(1).padStart(7)} ms  non-2xx ${measurement.non2xx}  failed ${measurement.failures}`,
    );
    if (result.against) log(`  ${"".padEnd(18)} ${againstLine(result.against)}`);
  }

  // Targets that compare a case with another one measured later (ratioOf) are judged once all have run.
  for (const result of results) {
    const benchCase = selected.find((candidate) => candidate.name === result.name)!;
    if (!result.measurement || !benchCase.targets.some((target) => target.kind === "ratioOf")) continue;
    const bareMeasurement = result.bareAlongside !== undefined ? { ...result.measurement, requestsPerSecond: result.bareAlongside } : benchCase.bare ? measured.get(benchCase.bare) : undefined;
    Object.assign(result, judge(benchCase, result.measurement, bareMeasurement, options.wikiPages, measured));
  }

  // 4. Memory after the load, then the report.
  // With --processes, the process started for the run served only each case's first probe: no verdict on it.
  const memory = options.processes > 1 ? null : (servers.hubgraph?.memory() ?? null);
  const memoryVerdict = memory ? { target: `RSS ≤${RSS_LIMIT_MB} MB`, status: memory.rssMb <= RSS_LIMIT_MB ? ("pass" as const) : ("FAIL" as const) } : undefined;
  const commit = describeCommit(root);
  const report: RunReport = {
    date,
    command: `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim(),
    mode: options.mode,
    rows: { wikiPages: seeded!.wikiPages, wikiRevisions: seeded!.wikiRevisions, blogEntries: seeded!.blogEntries },
    seedSeconds: seeded!.seconds,
    load: { connections: options.connections, seconds: options.seconds, warmupSeconds: options.warmupSeconds, rounds: options.rounds, processes: options.processes },
    machine: {
      cpus: os.cpus().length,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.versions.node,
      database: options.mode === "pglite" ? `PGlite (PostgreSQL ${databaseVersion!})` : databaseVersion!,
      loadAverageBefore,
      loadAverageAfter: os.loadavg(),
      commit,
    },
    cases: results,
    serverMemory: memory && memoryVerdict ? { ...memory, limitMb: RSS_LIMIT_MB, verdict: memoryVerdict } : null,
    summary: summarize(results, memoryVerdict),
    ...(options.against ? { against: `${options.against} (commit ${describeCommit(options.against)})` } : {}),
  };
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(`${base}.md`, `${markdownReport(report)}\n`);
  console.log(`\n${markdownTable(report)}\n`);
  if (report.against) console.log(`${againstHeading(report)}:\n\n${againstTable(report)}\n`);
  console.log(markdownReport(report).split("\n").slice(-2).join("\n"));
  console.log(`\nWritten: ${path.relative(root, base)}.md and .json`);
  // A missed target is a result, not a failure of the run; a wrong answer is.
  return results.some((result) => result.problem) ? 1 : 0;
}

function describeCommit(folder: string) {
  try {
    return execFileSync("git", ["describe", "--always", "--dirty"], { cwd: folder, encoding: "utf8" }).trim();
  } catch {
    return "unknown"; // not a git checkout
  }
}

/**
 * `rounds` rounds of one window of each, first `first` then `second`, then the other way round (ABBA …):
 * neither always runs on what the other left behind (a collection due, a CPU's clock).
 */
async function alternating(rounds: number, first: () => Promise<void>, second: () => Promise<void>) {
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      await first();
      await second();
    } else {
      await second();
      await first();
    }
  }
}

/** What is wrong with a case's answer on `server` (its status, or its expectation), checked once before its load; undefined when right. */
async function wrongAnswer(server: ChildServer, benchCase: (typeof selected)[number], spec: RequestSpec, fixture: Fixture): Promise<string | undefined> {
  const answer = await probe(server.url, spec);
  return answer.status < 200 || answer.status > 299 ? `HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}` : (benchCase.expect(answer.body, fixture) ?? undefined);
}

/** Copies a database (CREATE DATABASE … TEMPLATE), waiting for the source's last connections to close; answers the copy's URL. */
async function copyDatabase(serverUrl: string, source: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source}`);
        break;
      } catch (error) {
        // "source database … is being accessed by other users": a closed pool's backends end a moment later.
        if ((error as { code?: string }).code !== "55006" || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await admin.end().catch(() => {});
  }
  return databaseUrlFor(serverUrl, name);
}

async function dropDatabase(serverUrl: string, name: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Unmeasured load before each window of a case after its first (see `window` above). */
const LATER_WINDOW_WARMUP_SECONDS = 1;

/**
 * autocannon stops with requests still in flight, and the server goes on answering them; without a
 * pause those answers would take time from the next case (a lot, where requests queue for PGlite's
 * single connection). Waits about one slow answer's time, then for one more answer.
 */
async function settle(server: ChildServer, spec: RequestSpec, last: Measurement) {
  const wait = Number.isFinite(last.p99) ? Math.min(10_000, last.p99) : 10_000;
  await new Promise((resolve) => setTimeout(resolve, wait));
  await probe(server.url, spec).catch(() => {});
}

/**
 * bench/events.ts in a process of its own (its own scratch database and servers), on one instance and, with a
 * Redis server answering at REDIS_URL (default the local one), on two; its figures go to the console and to
 * a markdown file beside the cases' report.
 */
async function measureEvents(): Promise<number> {
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redisUp = await new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(redisUrl);
    const socket = net.connect({ host: hostname, port: Number(port || 6379) }, () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
  const sections: string[] = [];
  for (const instances of redisUp ? [1, 2] : [1]) {
    log(`\nEvents: 1,000 subscriptions, ${instances} instance${instances > 1 ? "s" : ""}…`);
    const output = execFileSync(process.execPath, ["--import", "tsx", path.join(root, "bench", "events.ts"), "--subscriptions", "1000", "--seconds", "8", "--instances", String(instances)], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, REDIS_URL: redisUrl },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const figures = output.slice(output.indexOf("\n1000 open subscriptions") + 1).trim();
    log(figures);
    sections.push("```\n" + figures + "\n```");
  }
  if (!redisUp) sections.push(`Two instances: skipped, no Redis answers at ${redisUrl}.`);
  fs.mkdirSync(args.out, { recursive: true });
  const file = path.join(args.out, `${new Date().toISOString().replace(/\.\d+Z$/, "Z").replace(/:/g, "-")}-events.md`);
  fs.writeFileSync(file, `# Events: commit to a subscriber's receipt (npm run bench)\n\n${sections.join("\n\n")}\n`);
  log(`Written: ${path.relative(root, file)}`);
  return 0;
}

let exitCode = 1;
try {
  exitCode = casesRun ? await main() : 0;
  if (eventsRun && !cleaning) exitCode = Math.max(exitCode, await measureEvents());
} catch (error) {
  if (!cleaning) console.error(error); // after Ctrl-C, failures of the interrupted work are expected
} finally {
  await cleanUp();
}
process.exit(exitCode);

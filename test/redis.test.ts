import crypto from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, StartupError } from "../src/config.js";
import { createApp } from "../src/app.js";
import { silentLogger } from "../src/observability/logger.js";
import { createScratchDatabase } from "./scratch-database.js";
import { capturingLogger, startServer, type LoggedLine, type TestServer } from "./server.js";
import { deleteRedisKeys, describeWithRedis, LOCAL_REDIS_URL, redisKeys } from "./redis-only.js";
import { derivedRedisPrefix } from "../src/db/redis.js";
import { openDatabase } from "../src/db/database.js";
import { describeOnPostgres } from "./postgres-only.js";

/** REDIS_URL on one server (docs/instances.md): a Redis that cannot be reached at start, or that fails later. */
describe("REDIS_URL at start", () => {
  it("must be a redis:// or rediss:// URL, its value not shown", () => {
    expect(() => loadConfig({ REDIS_URL: "http://user:secret@cache:6379" })).toThrow(StartupError);
    expect(() => loadConfig({ REDIS_URL: "http://user:secret@cache:6379" })).toThrow(/^Invalid configuration: REDIS_URL must be a Redis URL.*\(value not shown\)$/);
    expect(loadConfig({ REDIS_URL: "rediss://user:secret@cache:6380/2" }).redisUrl).toBe("rediss://user:secret@cache:6380/2");
    // Unset: derived from the database once it is open (below).
    expect(loadConfig({}).redisPrefix).toBeUndefined();
    expect(loadConfig({ REDIS_PREFIX: "mine:" }).redisPrefix).toBe("mine:");
  });

  it("that cannot be reached stops the start with a StartupError naming REDIS_URL, without its password", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const base = loadConfig();
    const scratch = base.databaseUrl ? await createScratchDatabase(base.databaseUrl) : undefined;
    try {
      const config = { ...base, databaseUrl: scratch?.url, admin: undefined, redisUrl: `redis://:hunter2@127.0.0.1:${closedPort}` };
      const started = createApp({ config, inMemory: true, logger: silentLogger() });
      await expect(started).rejects.toThrow(StartupError);
      await expect(started).rejects.toThrow(new RegExp(`^Cannot connect to Redis at 127\\.0\\.0\\.1:${closedPort} \\(REDIS_URL\\): `));
      await expect(started).rejects.not.toThrow(/hunter2/);
    } finally {
      await scratch?.drop();
    }
  });
});

/** A TCP proxy to the local Redis that a test can cut (Redis gone: connections dropped, new ones refused) and restore. */
async function cuttableProxy() {
  const sockets = new Set<net.Socket>();
  const serve = () =>
    net.createServer((client) => {
      const upstream = net.connect(6379, "127.0.0.1");
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => (client.destroy(), upstream.destroy(), sockets.delete(socket)));
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
  let server = serve();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const stop = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    cut: stop,
    async restore() {
      server = serve();
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
    close: stop,
  };
}

describeWithRedis("Redis failing while the server runs", () => {
  const prefix = `hubgraph-test-${crypto.randomUUID()}:`;
  const lines: LoggedLine[] = [];
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  let server: TestServer;

  beforeAll(async () => {
    proxy = await cuttableProxy();
    server = await startServer({ redisUrl: proxy.url, redisPrefix: prefix, rateLimit: 1000, loginRateLimit: 2 }, capturingLogger((line) => lines.push(line)));
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await deleteRedisKeys(prefix);
  });

  const signIn = (username: string, password: string) => server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username, password } });

  it("turns no request into an error: the limiters count in this process meanwhile, and say so; in Redis again once it is back", async () => {
    const user = await server.user();
    expect((await signIn("nobody-before", "wrong")).status).toBe(400);
    expect((await redisKeys(`${prefix}rl:sign-in:`)).filter((key) => key.endsWith("name:nobody-before"))).toHaveLength(1);

    await proxy.cut();
    // Requests (the request limiter) and failed sign-ins (the sign-in limiters) are answered as usual…
    expect((await server.rest("GET", "/members/me", { token: user.token })).status).toBe(200);
    expect((await signIn("nobody-during", "wrong")).status).toBe(400);
    expect((await signIn("nobody-during", "wrong")).status).toBe(400);
    // …and still limited, by this process's own count.
    expect((await signIn("nobody-during", "wrong")).status).toBe(429);
    expect(lines.filter((line) => line.level === "error" || line.level === "fatal")).toEqual([]);
    expect(lines.some((line) => line.level === "warn" && /rate limiter .*Redis \(REDIS_URL\) failed, counting in this process/.test(line.msg))).toBe(true);

    await proxy.restore();
    // The client library reconnects by itself (within its back-off of at most 2 s).
    for (let waited = 0; ; waited += 100) {
      expect((await signIn(`nobody-after-${waited}`, "wrong")).status).toBe(400);
      if ((await redisKeys(`${prefix}rl:sign-in:`)).some((key) => key.includes(`nobody-after-${waited}`))) break;
      if (waited > 5000) throw new Error("the limiter did not count in Redis again within 5 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});

/**
 * REDIS_PREFIX unset (issue 32): the prefix is derived from the database's identity, so two deployments
 * sharing a Redis never count each other's failures (a fresh database refused a new account's sign-in with
 * 429 when both used `hubgraph:` and the account ids matched), while every instance of one deployment agrees.
 */
describeWithRedis("REDIS_PREFIX derived from the database", () => {
  const servers: TestServer[] = [];
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const prefix of prefixes) await deleteRedisKeys(prefix);
  });

  it("differs between two databases: one's failed sign-ins do not refuse the other's account of the same id", async () => {
    const start = async () => {
      const server = await startServer({ redisUrl: LOCAL_REDIS_URL, redisPrefix: undefined, loginRateLimit: 2 });
      servers.push(server);
      prefixes.push(derivedRedisPrefix((await server.app.db.identity()).value));
      return server;
    };
    const [first, second] = [await start(), await start()];
    expect(prefixes[0]).toMatch(/^hubgraph:[0-9a-f]{16}:$/);
    expect(prefixes[0]).not.toBe(prefixes[1]);
    const [one, two] = [await first.user({ username: "samename" }), await second.user({ username: "samename" })];
    expect(one.id).toBe(two.id);
    const signIn = (server: TestServer, password: string) =>
      server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username: "samename", password } });
    for (let attempt = 0; attempt < 2; attempt++) expect((await signIn(first, "wrong")).status).toBe(400);
    expect((await signIn(first, "wrong")).status).toBe(429);
    // Counted under the first database's prefix; the second database's account of the same id signs in.
    expect(await redisKeys(`${prefixes[0]}rl:sign-in:`)).toContainEqual(expect.stringMatching(new RegExp(`\\|account:${one.id}$`)));
    expect((await signIn(second, two.password)).status).toBe(200);
  });

  it("is the same for every instance of one database (PostgreSQL: its system identifier and name)", async (context) => {
    const server = servers[0]!;
    if (!server.databaseUrl) {
      // In memory, each PGlite is its own database; a data directory's identity is its path (and the machine).
      console.log("skipped: a second instance of one database needs PostgreSQL (in-memory PGlite is one process's own)");
      return context.skip();
    }
    const again = await openDatabase({ databaseUrl: server.databaseUrl, log: () => {} });
    try {
      expect(derivedRedisPrefix((await again.identity()).value)).toBe(prefixes[0]);
      expect(await again.identity()).toEqual({ value: expect.stringMatching(/^postgresql:\d+\/\w+$/) });
    } finally {
      await again.close();
    }
  });
});

describeOnPostgres("the database's identity where pg_control_system() is refused", "a role and a revoked function of its own", () => {
  it("is the deployment id its migration stored and the database's name, for every role alike; another for every database; it says so", async () => {
    const adminUrl = process.env.DATABASE_URL!;
    const role = `hubgraph_limited_${crypto.randomBytes(4).toString("hex")}`;
    const { default: pg } = await import("pg");
    const scratches = [await createScratchDatabase(adminUrl), await createScratchDatabase(adminUrl)];
    const opened: Awaited<ReturnType<typeof openDatabase>>[] = [];
    const asRole = (url: string) => Object.assign(new URL(url), { username: role, password: "" }).toString();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      for (const scratch of scratches) {
        const owner = new pg.Client({ connectionString: scratch.url });
        await owner.connect();
        // As a managed server may: the function refused to everyone who is not a superuser.
        await owner.query(`REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC`);
        await owner.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}; GRANT ALL ON SCHEMA public TO ${role}`);
        await owner.end();
      }
      // The limited role, a superuser (who could call the function) on the same database, and the other database.
      for (const url of [asRole(scratches[0]!.url), scratches[0]!.url, asRole(scratches[1]!.url)]) opened.push(await openDatabase({ databaseUrl: url, log: () => {} }));
      const [first, superuser, other] = await Promise.all(opened.map((db) => db.identity()));
      expect(first!.value).toMatch(new RegExp(`^postgresql-deployment:[0-9a-f-]{36}/${scratches[0]!.name}$`));
      expect(first!.note).toMatch(/EXECUTE on pg_control_system\(\) is not granted to PUBLIC/);
      expect(superuser).toEqual(first);
      // A copy of one template: the same stored id, told apart by the database's name.
      expect(derivedRedisPrefix(other!.value)).not.toBe(derivedRedisPrefix(first!.value));
      // No stored id: the start stops, saying what is missing and what to do.
      const owner = new pg.Client({ connectionString: scratches[1]!.url });
      await owner.connect();
      await owner.query("DELETE FROM deployment");
      await owner.end();
      await expect(opened[2]!.identity()).rejects.toThrow(/deployment holds no row.*REDIS_PREFIX/);
    } finally {
      for (const db of opened) await db.close();
      for (const scratch of scratches) await scratch.drop();
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
  });
});

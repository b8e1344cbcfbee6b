import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTEN_APPLICATION_NAME } from "../src/db/database.js";
import { BEARER_LOOKUP, startServer, type TestServer, type TestUser } from "./server.js";
import { describeOnPostgres, skipUnlessPostgres } from "./postgres-only.js";

/** The token lookups `run`'s requests send to `server`'s database. */
async function tokenLookups(server: TestServer, run: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const stop = server.app.db.onQuery((sql) => void (BEARER_LOOKUP.test(sql) && count++));
  try {
    await run();
  } finally {
    stop();
  }
  return count;
}

/**
 * The bearer cache (src/auth/bearer-cache.ts): a signed-in request costs no statement for its token once
 * the server has looked it up, and the cache never answers for a token or account the database has
 * changed: not after a revocation through the API, not after a change another process made (PostgreSQL
 * NOTIFY), not while the server cannot hear those notices.
 */
describe("the bearer cache", () => {
  let server: TestServer;
  let admin: TestUser;

  beforeAll(async () => {
    server = await startServer();
    admin = await server.user({ admin: true });
  });
  afterAll(() => server?.close());

  const lookups = (run: () => Promise<unknown>) => tokenLookups(server, run);
  const me = (token: string) => server.rest("GET", "/members/me", { token });

  /** Polls until `check` holds, for at most `ms`; answers whether it did. */
  async function eventually(check: () => Promise<boolean>, ms = 3_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (await check()) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it("looks a token up once; later requests with it send no statement for it", async () => {
    const user = await server.user();
    expect(await lookups(async () => expect((await me(user.token)).status).toBe(200))).toBe(1);
    expect(await lookups(async () => expect((await me(user.token)).status).toBe(200))).toBe(0);
    // An unknown token is never kept: each try costs its lookup.
    for (let attempt = 0; attempt < 2; attempt++) expect(await lookups(async () => expect((await me("not-a-token")).status).toBe(401))).toBe(1);
  });

  it("a token revoked through the API is refused on the very next request", async () => {
    const user = await server.user();
    expect((await me(user.token)).status).toBe(200);
    expect((await me(user.token)).status).toBe(200); // now from the cache
    const revoked = await server.rest("POST", "/developer/oauth/revoke", { form: { token: user.token } });
    expect(revoked.status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
  });

  it("a change made in this process straight in the database (a demotion) holds for the next request", async () => {
    const user = await server.user({ admin: true });
    // Citations are written by administrators only.
    const publish = async () => {
      const response = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${user.token}` },
        body: JSON.stringify({ query: `mutation { createCitation(input: { title: "Cached power" }) { id } }` }),
      });
      return (await response.json()) as { data?: { createCitation?: { id: string } | null }; errors?: { message: string }[] };
    };
    expect((await publish()).data?.createCitation?.id).toBeTruthy();
    expect(await lookups(async () => expect((await publish()).data?.createCitation?.id).toBeTruthy())).toBe(0); // from the cache
    await server.app.db.prisma.user.update({ where: { id: user.id }, data: { isAdmin: false } });
    const refused = await publish();
    expect(refused.data?.createCitation ?? null).toBeNull();
    expect(refused.errors?.[0]?.message).toMatch(/not allowed/i);
  });

  it("a token another process revokes is refused within moments (PostgreSQL NOTIFY), not after the cache's lifetime", async (context) => {
    skipUnlessPostgres(context, "another process's change", "PGlite has one in-process connection, whose changes this process sends itself");
    const user = await server.user();
    expect((await me(user.token)).status).toBe(200);
    expect(await lookups(async () => expect((await me(user.token)).status).toBe(200))).toBe(0);
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await other.connect();
    try {
      await other.query(`UPDATE oauth_tokens SET access_token_expires_at = now() - interval '1 minute' WHERE user_id = $1`, [user.id]);
      expect(await eventually(async () => (await me(user.token)).status === 401, 2_000)).toBe(true);
    } finally {
      await other.end();
    }
  });

  it("keeps nothing while it cannot hear the notices, and listens again when it can", async (context) => {
    skipUnlessPostgres(context, "a lost listening connection");
    const user = await server.user();
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await other.connect();
    try {
      expect((await me(user.token)).status).toBe(200);
      // The server's listening connection, ended by the database: from then on every request looks its token up.
      const ended = await other.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
        [LISTEN_APPLICATION_NAME],
      );
      expect(ended.rowCount).toBeGreaterThan(0);
      expect(await eventually(async () => (await lookups(() => me(user.token))) === 1 && (await lookups(() => me(user.token))) === 1)).toBe(true);
      // Within a few seconds it listens again and keeps tokens again.
      expect(await eventually(async () => (await lookups(() => me(user.token))) === 0, 8_000)).toBe(true);
      // And hears again: a revocation by another process ends the token.
      await other.query(`UPDATE oauth_tokens SET access_token_expires_at = now() - interval '1 minute' WHERE user_id = $1`, [user.id]);
      expect(await eventually(async () => (await me(user.token)).status === 401, 2_000)).toBe(true);
    } finally {
      await other.end();
    }
  }, 20_000);

  it("is off with BEARER_CACHE_TTL=0: every request looks its token up", async () => {
    const off = await startServer({ bearerCacheTtl: 0 });
    try {
      const user = await off.user();
      let count = 0;
      const stop = off.app.db.onQuery((sql) => void (BEARER_LOOKUP.test(sql) && count++));
      for (let request = 0; request < 3; request++) expect((await off.rest("GET", "/members/me", { token: user.token })).status).toBe(200);
      stop();
      expect(count).toBe(3);
    } finally {
      await off.close();
    }
  });
});

/**
 * A TCP proxy to PostgreSQL whose connections can be stalled: bytes stop flowing both ways and nothing is
 * closed, as with a half-open connection (a peer gone without a FIN or RST: a dropped NAT entry, a dead
 * host). Connections opened after a stall pass as usual.
 */
async function stallingProxy(target: string) {
  const { hostname, port } = new URL(target);
  const pairs: { client: net.Socket; upstream: net.Socket }[] = [];
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(port || 5432), hostname);
    pairs.push({ client, upstream });
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => (client.destroy(), upstream.destroy());
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String((proxy.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    /** Stalls the connection whose upstream side has local port `port` (pg_stat_activity.client_port). */
    stall(port: number): boolean {
      const pair = pairs.find((candidate) => candidate.upstream.localPort === port);
      if (!pair) return false;
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      pair.client.pause();
      pair.upstream.pause();
      return true;
    },
    close: () => {
      for (const { client, upstream } of pairs) client.destroy(), upstream.destroy();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describeOnPostgres("the bearer cache's listening connection, when it stalls", "PGlite has no listening connection", () => {
  let server: TestServer;
  let proxy: Awaited<ReturnType<typeof stallingProxy>>;

  beforeAll(async () => {
    // A check of the listening connection every 300 ms (LISTEN_HEARTBEAT, in seconds; 30 by default).
    server = await startServer({ listenHeartbeat: 0.3 }, undefined, {
      via: async (url) => (proxy = await stallingProxy(url)).url,
    });
  });
  afterAll(async () => {
    // The proxy first: a connection still stalled (the heartbeat failing) would hold the server's close.
    await proxy?.close();
    await server?.close();
  });

  const me = (token: string) => server.rest("GET", "/members/me", { token });
  const lookups = (run: () => Promise<unknown>) => tokenLookups(server, run);

  it("is noticed by the heartbeat: the cache is emptied (a token revoked meanwhile is refused), and it listens again", async () => {
    const user = await server.user();
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await other.connect();
    try {
      expect((await me(user.token)).status).toBe(200);
      expect(await lookups(() => me(user.token))).toBe(0);
      // The server's listening connection goes silent without closing: its notices cannot arrive.
      const { rows } = await other.query<{ client_port: number }>(
        `SELECT client_port FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
        [LISTEN_APPLICATION_NAME],
      );
      expect(rows).toHaveLength(1);
      expect(proxy.stall(rows[0]!.client_port)).toBe(true);
      // Another process revokes the token; its NOTIFY goes to a connection that no longer answers.
      await other.query(`UPDATE oauth_tokens SET access_token_expires_at = now() - interval '1 minute' WHERE user_id = $1`, [user.id]);
      // Within two heartbeats (0.6 s; up to 5 s on a loaded machine, against the cache's 60) the connection
      // is taken as lost: the cache is emptied and the token refused.
      const refusedBy = Date.now() + 5_000;
      let status = (await me(user.token)).status;
      while (status !== 401 && Date.now() < refusedBy) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await me(user.token)).status;
      }
      expect(status).toBe(401);
      // It listens again on a new connection (reconnecting after 2 s) and keeps tokens again.
      const again = await server.user();
      const deadline = Date.now() + 8_000;
      let kept = false;
      while (!kept && Date.now() < deadline) {
        await me(again.token);
        kept = (await lookups(() => me(again.token))) === 0;
        if (!kept) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(kept).toBe(true);
      const listening = await other.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`, [
        LISTEN_APPLICATION_NAME,
      ]);
      expect(listening.rows[0].n).toBeGreaterThanOrEqual(1);
    } finally {
      await other.end();
    }
  }, 30_000);
});

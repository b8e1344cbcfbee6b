import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BEARER_LOOKUP, startServer, type TestServer, type TestUser } from "./server.js";

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

  /** The token lookups a request sends. */
  async function lookups(run: () => Promise<unknown>): Promise<number> {
    let count = 0;
    const stop = server.app.db.onQuery((sql) => void (BEARER_LOOKUP.test(sql) && count++));
    try {
      await run();
    } finally {
      stop();
    }
    return count;
  }
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
    if (!server.databaseUrl) {
      console.log("skipped: another process's change needs PostgreSQL (PGlite has one in-process connection, whose changes this process sends itself)");
      return context.skip();
    }
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
    if (!server.databaseUrl) {
      console.log("skipped: a lost listening connection needs PostgreSQL");
      return context.skip();
    }
    const user = await server.user();
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await other.connect();
    try {
      expect((await me(user.token)).status).toBe(200);
      // The server's listening connection, ended by the database: from then on every request looks its token up.
      const ended = await other.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
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

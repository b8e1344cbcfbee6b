import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { areaTestings, type AreaTesting, type ListContract } from "./areas.js";
import { startServer, type Cast, type TestServer } from "./server.js";

/**
 * What the hot paths cost in SQL statements (issue 6, "Per-request overhead"): a read by id is one
 * statement, a list with its total is one, and a bearer token with its user is one more.
 */
const areas = areaTestings.filter((candidate): candidate is AreaTesting & { contract: ListContract } => Boolean(candidate.contract));

describe("statements per request on the hot paths", () => {
  let server: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    server = await startServer();
    cast = await server.cast("hot-paths");
  });
  afterAll(() => server?.close());

  for (const testing of areas) {
    const { contract } = testing;
    if (contract.read) {
      it(`${testing.area}: a REST read is 1 statement anonymous, 2 with a bearer token`, async () => {
        const id = await testing.create(server, cast.admin.token, {});
        const path = contract.read!.path.replace("{id}", String(id));
        const anonymous = await server.recordQueries(() => server.rest("GET", path));
        expect(anonymous.result.status).toBe(200);
        expect(anonymous.queries, anonymous.queries.join("\n")).toHaveLength(1);
        const signedIn = await server.recordQueries(() => server.rest("GET", path, { token: cast.member.token }));
        expect(signedIn.result.status).toBe(200);
        expect(signedIn.queries, signedIn.queries.join("\n")).toHaveLength(2);
      });
    }

    it(`${testing.area}: a REST list with its total is 1 statement anonymous, 2 with a bearer token`, async () => {
      await testing.create(server, cast.admin.token, {});
      const anonymous = await server.recordQueries(() => server.rest("GET", contract.list.path));
      expect(anonymous.result.body.total).toBeGreaterThan(0);
      expect(anonymous.queries, anonymous.queries.join("\n")).toHaveLength(1);
      const signedIn = await server.recordQueries(() => server.rest("GET", contract.list.path, { token: cast.member.token }));
      expect(signedIn.result.body.total).toBeGreaterThan(0);
      expect(signedIn.queries, signedIn.queries.join("\n")).toHaveLength(2);
    });
  }
});

describe.skipIf(!process.env.DATABASE_URL)("a full connection pool", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ databasePoolSize: 1 });
  });
  afterAll(() => server?.close());

  it("answers 503 with Retry-After, on REST and GraphQL, reads and writes, when no connection frees up in time", async () => {
    // Hold the pool's only connection for longer than a request may wait for it (5 s).
    let release = () => {};
    const held = server.app.db.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await new Promise<void>((resolve) => (release = resolve));
      },
      { timeout: 20_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      const [rest, graphql, write] = await Promise.all([
        server.rest("GET", "/wiki/list"),
        fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ wikiPages { total } }" }) }),
        // Signing in goes through Prisma, which waits for the same pool.
        server.rest("POST", "/session", { body: { username: "nobody", password: "whatever-password" } }),
      ]);
      expect(write.status, JSON.stringify(write.body)).toBe(503);
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toBe("1");
      expect(rest.body).toEqual({ message: "The server is busy; try again shortly.", code: 503 });
      expect(graphql.status).toBe(503);
      expect(graphql.headers.get("retry-after")).toBe("1");
      expect(((await graphql.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe("SERVICE_UNAVAILABLE");
    } finally {
      release();
      await held;
    }
    expect((await server.rest("GET", "/wiki/list")).status).toBe(200);
  }, 30_000);
});

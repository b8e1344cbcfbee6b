import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractAreas, graphqlList, listedRecords, listedTotal, listRequest, listTakes, usersCreate, recordPath, type Where } from "./areas.js";
import { Prisma } from "../src/generated/prisma/client.js";
import { sqlClientOf } from "../src/db/sql.js";
import { startServer, type Cast, type RestResult, type TestServer } from "./server.js";
import { describeOnPostgres } from "./postgres-only.js";

/**
 * What the hot paths cost in SQL statements (issue 6, "Per-request overhead"): a read by id is one
 * statement, a list with its total is one, whoever asks (a bearer token's lookup, when the bearer cache does
 * not hold the token, is one more: test/bearer-cache.test.ts; recordQueries leaves it out).
 */
const areas = contractAreas("hot paths");

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
    const fromPath = contract.list.scopeFromPath;
    // A list whose path names its scope spends the scope's lookup (a group's) first.
    const extra = fromPath?.statements ?? 0;
    const statements = `${1 + extra} statement${extra ? "s (the path's scope, then the list or record)" : ""}`;
    let scopes = 0;
    /** A scope of the test's own: the path's (a fresh group, made by the administrator) or none (site, or unscoped). */
    const ownScope = async (): Promise<Where> => (fromPath ? { [fromPath.placeholder]: (await fromPath.make(server, cast.admin.token)).value } : {});
    const searchScope = async (): Promise<Where> => (fromPath ? ownScope() : contract.spec.scoped ? { scope: "project", scope_id: 1 + scopes++ } : {});
    const listOf = (where: Where, query: Where = {}, token?: string) => {
      const request = listRequest(contract, where);
      return server.rest(request.method, request.path, { query: { ...request.query, ...query }, token });
    };

    if (contract.read) {
      it(`${testing.area}: a REST read is ${statements}, anonymous or with a bearer token`, async () => {
        const where = await ownScope();
        const id = await testing.create(server, cast.admin.token, where);
        const path = recordPath(contract.read!.path, id, where);
        const anonymous = await server.recordQueries(() => server.rest("GET", path));
        expect(anonymous.result.status).toBe(200);
        expect(anonymous.queries, anonymous.queries.join("\n")).toHaveLength(1 + extra);
        const signedIn = await server.recordQueries(() => server.rest("GET", path, { token: cast.member.token }));
        expect(signedIn.result.status).toBe(200);
        expect(signedIn.queries, signedIn.queries.join("\n")).toHaveLength(1 + extra);
      });
    }

    it(`${testing.area}: a REST list with its total is ${statements}, anonymous or with a bearer token`, async () => {
      const where = await ownScope();
      await testing.create(server, cast.admin.token, where);
      const anonymous = await server.recordQueries(() => listOf(where));
      expect(listedTotal(contract, anonymous.result)).toBeGreaterThan(0);
      expect(anonymous.queries, anonymous.queries.join("\n")).toHaveLength(1 + extra);
      const signedIn = await server.recordQueries(() => listOf(where, {}, cast.member.token));
      expect(listedTotal(contract, signedIn.result)).toBeGreaterThan(0);
      expect(signedIn.queries, signedIn.queries.join("\n")).toHaveLength(1 + extra);
    });

    if (contract.spec.search) {
      // Through the REST list where its row takes `search`, else through the GraphQL list (a group plugin's twin).
      const viaRest = listTakes(contract, "search");
      it(`${testing.area}: a search ${viaRest ? "" : "(through the GraphQL list: the REST row takes none) "}counts its total once; the same search again reuses it, until a write`, async () => {
        const scope = await searchScope();
        const search = async (token?: string) => {
          if (viaRest) {
            const response = await listOf(scope, { search: "wombat" }, token);
            return { body: response.body as unknown, total: listedTotal(contract, response), shown: listedRecords(contract, response.body).length };
          }
          const answer = await graphqlList(server, contract, scope, { search: "wombat", limit: 0 }, token);
          expect(answer.errors).toBeUndefined();
          return { body: answer as unknown, total: answer.total, shown: answer.ids.length };
        };
        // The member's draft: areas whose records only managers or administrators write refuse it (the search then finds the others).
        const writer = usersCreate(contract) ? cast.member.token : cast.admin.token;
        await testing.create(server, cast.admin.token, { ...scope, title: "Hot wombat" });
        await testing.create(server, writer, { ...scope, title: "Wombat draft", [contract.spec.records.published.field]: 0 }).catch(() => undefined);
        const counts = (queries: string[]) => queries.filter((sql) => /count\(/i.test(sql));
        // Anonymous callers count what everyone sees (administrators reuse that count: it holds all rows);
        // a signed-in user's first search also counts their own records.
        // Records private to some users (hidden groups): a signed-in caller's statement also counts, every
        // time, the matching private records they may see (bounded by their own memberships, never kept).
        const perUser = contract.spec.records.isScope ? 1 : 0;
        const callers = [
          { token: undefined, counts: 1, again: 0 },
          { token: cast.member.token, counts: contract.spec.records.creator ? 1 : perUser, again: perUser },
          { token: cast.admin.token, counts: 0, again: 0 },
        ];
        for (const { token, counts: firstCounts, again: againCounts } of callers) {
          const first = await server.recordQueries(() => search(token));
          expect(first.result.total).toBeGreaterThan(0);
          expect(first.queries, first.queries.join("\n")).toHaveLength(1 + extra);
          expect(counts(first.queries), first.queries.join("\n")).toHaveLength(firstCounts);
          const again = await server.recordQueries(() => search(token));
          expect(again.result.body).toEqual(first.result.body);
          expect(again.queries, again.queries.join("\n")).toHaveLength(1 + extra);
          expect(counts(again.queries), again.queries.join("\n")).toHaveLength(againCounts);
        }
        // A write to the scope: the next search counts again (the page's statement finds the version changed).
        await testing.create(server, cast.admin.token, { ...scope, title: "Another wombat" });
        const after = await server.recordQueries(() => search());
        expect(counts(after.queries), after.queries.join("\n")).toHaveLength(1);
        expect(after.result.total).toBe(after.result.shown);
        // Requests that find the same counts stale at the same time share one count (windowed counts hold for
        // the moment they were counted at, so those are shared only by requests of the same millisecond).
        await testing.create(server, cast.admin.token, { ...scope, title: "Yet another wombat" });
        const together = await server.recordQueries(() => Promise.all(Array.from({ length: 5 }, () => search())));
        if (!contract.spec.records.window) expect(counts(together.queries), together.queries.join("\n")).toHaveLength(1);
        for (const response of together.result) expect(response.total).toBe(after.result.total + 1);
      });
    }
  }
});

describe("records read on the driver, not through Prisma", () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startServer();
    token = (await server.user({ admin: true })).token;
  });
  afterAll(() => server?.close());

  it("read timestamps as Prisma stores them (UTC, milliseconds, years 1 to 9999), in lists, reads and their relations", async () => {
    for (const created of ["0050-01-02T03:04:05.006Z", "2024-10-30T15:02:38.120Z", "9999-12-31T23:59:59.999Z"]) {
      const query = `mutation($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id } }`;
      const response = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables: { input: { title: `At ${created}`, pagetext: "text", state: 1, scope: "project", scopeId: 2 } } }),
      });
      const id = ((await response.json()) as { data: { createWikiPage: { id: string } } }).data.createWikiPage.id;
      // Stored directly: the API takes no creation time in the future (docs/decisions.md), the store holds any.
      await server.app.db.prisma.wikiPage.update({ where: { id: Number(id) }, data: { created: new Date(created) } });
      const stored = await server.app.db.prisma.wikiPage.findUniqueOrThrow({ where: { id: Number(id) }, include: { currentRevision: true } });
      const read = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: `{ wikiPage(id: ${id}) { created modified version { created } } wikiPages(scope: "project", scopeId: 2, sort: "id", sortDir: "desc", limit: 1) { items { created } } }` }),
      });
      const { data } = (await read.json()) as { data: { wikiPage: { created: string; modified: string; version: { created: string } }; wikiPages: { items: { created: string }[] } } };
      expect(data.wikiPage.created).toBe(created);
      expect(data.wikiPages.items[0]!.created).toBe(created);
      expect(data.wikiPage.modified).toBe(stored.modified.toISOString());
      expect(data.wikiPage.version.created).toBe(stored.currentRevision!.created.toISOString());
    }
  });
});

describeOnPostgres("a full connection pool", "PGlite has no connection pool", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ databasePoolSize: 1 });
  });
  afterAll(() => server?.close());

  /** Holds the pool's only connection, for longer than a request may wait for it (5 s), until the returned release is called (and awaited). */
  async function holdThePool(): Promise<() => Promise<void>> {
    let release = () => {};
    const held = server.app.db.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await new Promise<void>((resolve) => (release = resolve));
      },
      { timeout: 20_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    return async () => {
      release();
      await held;
    };
  }

  it("answers 503 with Retry-After, on REST and GraphQL, reads and writes, when no connection frees up in time", async () => {
    const query = () => fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ wikiPages { total } }" }) });
    // Run before, so the busy answer comes from the compiled document (src/graphql/compiled.ts), whose errors locate themselves differently.
    for (let run = 0; run < 3; run++) expect((await query()).status).toBe(200);
    const release = await holdThePool();
    try {
      const [rest, graphql, write] = await Promise.all([
        server.rest("GET", "/wiki/list"),
        query(),
        // Signing in goes through Prisma, which waits for the same pool.
        server.rest("POST", "/session", { body: { username: "nobody", password: "whatever-password" } }),
      ]);
      expect(write.status, JSON.stringify(write.body)).toBe(503);
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toBe("1");
      expect(rest.body).toEqual({ message: "The server is busy; try again shortly.", code: 503 });
      expect(graphql.status).toBe(503);
      expect(graphql.headers.get("retry-after")).toBe("1");
      const [busy] = ((await graphql.json()) as { errors: { extensions: { code: string }; locations?: unknown; path?: unknown }[] }).errors;
      expect(busy!.extensions.code).toBe("SERVICE_UNAVAILABLE");
      // Located where the operation met it: the total, the one field that reads.
      expect(busy).toMatchObject({ locations: [{ line: 1, column: 15 }], path: ["wikiPages", "total"] });
    } finally {
      await release();
    }
    expect((await server.rest("GET", "/wiki/list")).status).toBe(200);
  }, 30_000);

  const sql = () => sqlClientOf(server.app.db.prisma);
  // The wiki's events: the activity consumer appends its entries' events whenever it has caught up.
  const eventCount = async () => (await sql().query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM outbox WHERE area = 'wiki'`))[0]!.n;
  const pageRow = async (id: number) => (await sql().query<{ title: string; version: string }>(Prisma.sql`SELECT title, xmin::text AS version FROM wiki_pages WHERE id = ${id}`))[0];

  it("answers a write 503 with Retry-After and writes nothing, neither record nor event, when no connection frees up: a create (one statement) and a change (a transaction)", async () => {
    const writer = await server.user();
    const page = await server.rest("POST", "/wiki", { token: writer.token, body: { title: "Written before the pool filled", pagetext: "Text." } });
    expect(page.status).toBe(201);
    // The bearer cache holds the writer's token now: the writes below go to the write path without a lookup.
    const before = { events: await eventCount(), page: await pageRow(page.body.id) };
    const release = await holdThePool();
    let created: RestResult, changed: RestResult, sent: string[];
    try {
      ({ result: [created, changed], queries: sent } = await server.recordQueries(() =>
        Promise.all([
          server.rest("POST", "/wiki", { token: writer.token, body: { title: "Written while the pool was full", pagetext: "Text." } }),
          server.rest("PATCH", `/wiki/${page.body.id}`, { token: writer.token, body: { title: "Changed while the pool was full" } }),
        ]),
      ));
    } finally {
      await release();
    }
    expect(sent.some((statement) => /INSERT INTO "?wiki_pages"?/.test(statement))).toBe(true); // the create's one statement (createRecord) waited
    for (const answer of [created, changed]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("1");
      expect(answer.body).toEqual({ message: "The server is busy; try again shortly.", code: 503 });
    }
    expect((await sql().query(Prisma.sql`SELECT id FROM wiki_pages WHERE title = ${"Written while the pool was full"}`)).length).toBe(0);
    expect(await pageRow(page.body.id)).toEqual(before.page);
    expect(await eventCount()).toBe(before.events);
  }, 30_000);

  it("answers a change 503 with Retry-After and changes nothing when its record stays locked past the lock timeout", async () => {
    const writer = await server.user();
    const page = await server.rest("POST", "/wiki", { token: writer.token, body: { title: "Locked by another", pagetext: "Text." } });
    expect(page.status).toBe(201);
    const before = { events: await eventCount(), page: await pageRow(page.body.id) };
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT id FROM wiki_pages WHERE id = $1 FOR UPDATE", [page.body.id]);
      // Waits LOCK_TIMEOUT_MS (5 s: a constant, no setting to shorten it) for the row, then gives up.
      const changed = await server.rest("PATCH", `/wiki/${page.body.id}`, { token: writer.token, body: { title: "Changed through the lock" } });
      expect(changed.status, JSON.stringify(changed.body)).toBe(503);
      expect(changed.headers.get("retry-after")).toBe("1");
      expect(changed.body).toEqual({ message: "The server is busy; try again shortly.", code: 503 });
    } finally {
      await other.query("ROLLBACK").catch(() => {});
      await other.end();
    }
    expect(await pageRow(page.body.id)).toEqual(before.page);
    expect(await eventCount()).toBe(before.events);
    expect((await server.rest("PATCH", `/wiki/${page.body.id}`, { token: writer.token, body: { title: "Changed once the lock went" } })).status).toBe(200);
  }, 30_000);
});

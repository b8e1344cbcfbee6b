import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { skipUnlessPostgres } from "../../test/postgres-only.js";

/** Forum writes at the same time (PostgreSQL: PGlite runs one transaction at a time). */
let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("Forumrace");
});

afterAll(() => server?.close());

const post = (token: string, body: Record<string, unknown>) =>
  server.rest("POST", "/forum", { token, body: { category_id: 0, scope: "site", scope_id: 0, comment: "Text.", ...body } });

describe("replies at the same time", () => {
  it("to one thread all go in (no deadlock between the thread's lock and its last_activity), and its counts add up", async (context) => {
    skipUnlessPostgres(context, "replies in concurrent transactions", "PGlite runs one transaction at a time");
    const started = await post(cast.alice.token, { title: "A busy thread" });
    expect(started.status).toBe(201);
    const writers = [cast.alice, cast.bob, cast.member, cast.manager];
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, index) => post(writers[index % writers.length]!.token!, { thread: String(started.body.id), comment: `Reply ${index}` })),
    );
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 201));
    const read = await server.rest("GET", `/forum/${started.body.id}`, { query: { limit: 100 } });
    expect(read.status).toBe(200);
    expect(read.body.total).toBe(24);
  });
});

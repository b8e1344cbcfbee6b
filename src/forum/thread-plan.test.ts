import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { describePlan, explainNodes } from "../../test/plan.js";
import { sqlClientOf } from "../db/sql.js";
import { recordStatements } from "../../test/request-statements.js";
import { testingOf } from "../../test/areas.js";

// The thread read (GET /forum/{thread}) is no list of the spec (test/plans.test.ts derives those): its
// statements are taken as the server sends them, with their values, over the forum plan seed, and each must
// be answered through indexes — no sequential scan of the posts, no sort (its page walks the thread's index).

let server: TestServer;
let cast: Cast;
let thread: number;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("threadplan");
  const db = server.app.db.prisma;
  const authors = [cast.alice.id, cast.bob.id, cast.member.id, cast.manager.id];
  // The seed's rows each fire the posts' counting trigger: on a loaded machine that took longer than the pool's
  // 30 s statement timeout (a PostgreSQL pass failed so), so the seeds run in a transaction without it.
  const seeded = (statement: Prisma.Sql) =>
    sqlClientOf(db).transaction(async (tx) => {
      await tx.query(Prisma.sql`SET LOCAL statement_timeout = 0`);
      await tx.query(statement);
    });
  await seeded(testingOf("forum")!.contract!.plan!.seed!(10_000, { authors, groupId: cast.groupId }));
  const started = await server.rest("POST", "/forum", { token: cast.alice.token, body: { category_id: 0, scope: "site", scope_id: 0, title: "Planned", comment: "Text." } });
  thread = started.body.id;
  // A busy thread: 5,000 replies (a thread of 30 is sorted, rightly, in no time).
  await seeded(Prisma.sql`INSERT INTO forum_posts (category_id, section_id, thread_id, starter, parent_id, title, comment, scope, scope_id, own_state, state, access, created_by, created, last_activity)
    SELECT s.category_id, s.section_id, s.id, 0, s.id, '', 'Reply ' || n, s.scope, s.scope_id, 1, 1, s.access, ${cast.bob.id}, s.created + n * interval '1 second', s.created
      FROM forum_posts s, generate_series(1, 5000) n WHERE s.id = ${thread}`);
  await sqlClientOf(db).query(Prisma.sql`VACUUM ANALYZE forum_posts`);
}, 120_000);
afterAll(() => server?.close());

/** The statements a request sent to the posts, with their values, as Prisma.Sql to explain. */
async function statementsOf(run: () => Promise<unknown>): Promise<Prisma.Sql[]> {
  const { statements } = await recordStatements(server.app.db, run);
  return statements.filter((statement) => /forum_posts/.test(statement.text)).map((statement) => new Prisma.Sql(statement.text.split(/\$\d+/), statement.values));
}

describe("a reply's participants are read through their index", () => {
  it("the latest 1,000 of a thread's 3,000 posters: no sequential scan, no sort", async () => {
    // The source's statement (src/forum/activity.ts), its participants part, over a thread 3,000 people posted in
    // (as the trigger keeps them: each with their latest post there), beside the plan seed's threads.
    const sql = sqlClientOf(server.app.db.prisma);
    await sql.query(Prisma.sql`WITH posters AS (
        INSERT INTO users (username, email, name, password_hash) SELECT 'poster' || n, 'poster' || n || '@example.org', 'Poster', 'x' FROM generate_series(1, 3000) AS n RETURNING id)
      INSERT INTO forum_thread_participants (thread_id, user_id, last_post_id) SELECT ${thread}, id, ${thread} + id FROM posters`);
    await sql.query(Prisma.sql`ANALYZE forum_thread_participants`);
    const nodes = await explainNodes(
      sql,
      Prisma.sql`SELECT user_id FROM forum_thread_participants WHERE thread_id = ${thread} ORDER BY last_post_id DESC LIMIT 1000`,
    );
    const bad = nodes.filter((node) => node["Node Type"] === "Seq Scan" || node["Node Type"] === "Sort");
    expect(bad, describePlan(nodes)).toEqual([]);
  });
});

describe("a thread read's statements go through indexes", () => {
  for (const [who, sort] of [["anonymous", "newest"], ["anonymous", "oldest"], ["member", "newest"]] as const) {
    it(`${who}, ${sort}: no sequential scan of the posts, no sort`, async () => {
      const token = who === "member" ? cast.member.token : undefined;
      const statements = await statementsOf(() => server.rest("GET", `/forum/${thread}`, { token, query: { sort, limit: 25 } }));
      expect(statements.length).toBeGreaterThan(0);
      for (const statement of statements) {
        const nodes = await explainNodes(sqlClientOf(server.app.db.prisma), statement);
        const bad = nodes.filter((node) => (node["Node Type"] === "Seq Scan" && node["Relation Name"] === "forum_posts") || node["Node Type"] === "Sort");
        expect(bad, describePlan(nodes)).toEqual([]);
      }
    });
  }
});

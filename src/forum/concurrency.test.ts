import pg from "pg";
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

describe("user-category links at the same time", () => {
  it("a link to a category being deleted waits for the deletion and is a 400 naming category_id (it was the 409 of a record removed while the request ran)", async (context) => {
    skipUnlessPostgres(context, "a deletion in another transaction at the same time", "PGlite runs one transaction at a time");
    const section = await server.graphqlText(`mutation { createForumSection(input: { alias: "race", title: "Race" }) { id } }`, {}, cast.admin.token);
    const category = await server.graphqlText(
      `mutation($section: Int!) { createForumCategory(input: { sectionId: $section, alias: "race", title: "Race" }) { id } }`,
      { section: Number(section.data.createForumSection.id) },
      cast.admin.token,
    );
    const id = Number(category.data.createForumCategory.id);
    const deleting = new pg.Client({ connectionString: server.databaseUrl });
    await deleting.connect();
    try {
      await deleting.query("BEGIN");
      await deleting.query("DELETE FROM forum_categories WHERE id = $1", [id]);
      // The link's check reads the category as its snapshot has it; its insert then waits on the deletion.
      const link = server.rest("POST", "/forum/userscategories/create", { token: cast.bob.token, body: { category_id: id, user_id: cast.bob.id } });
      const early = await Promise.race([link.then(() => "answered"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 500))]);
      expect(early).toBe("waiting");
      await deleting.query("COMMIT");
      const answered = await link;
      expect(answered.status, JSON.stringify(answered.body)).toBe(400);
      expect(answered.body.errors[0].parameter).toBe("category_id");
    } finally {
      await deleting.end();
    }
  });
});

describe("a thread's moderation and its replies' edits at the same time", () => {
  it("never deadlock: a reply's change locks its thread first, as the thread's own change does", async (context) => {
    skipUnlessPostgres(context, "writes in concurrent transactions", "PGlite runs one transaction at a time");
    const gql = (query: string, variables: Record<string, unknown>, token: string) => server.graphqlText(query, variables, token);
    const pairs: { thread: number; reply: number }[] = [];
    for (let index = 0; index < 12; index++) {
      const thread = (await post(cast.alice.token!, { title: `Moderated ${index}` })).body.id;
      const reply = (await post(cast.bob.token!, { thread: String(thread) })).body.id;
      pairs.push({ thread, reply });
    }
    const failures: string[] = [];
    for (const published of [false, true, false]) {
      const answers = await Promise.all(
        pairs.flatMap(({ thread, reply }) => [
          gql(`mutation($id: ID!, $published: Boolean!) { publishForumPost(id: $id, published: $published) { id } }`, { id: thread, published }, cast.admin.token!),
          gql(`mutation($id: ID!, $input: UpdateForumPostInput!) { updateForumPost(id: $id, input: $input) { id } }`, { id: reply, input: { comment: `Edited ${String(published)}`, state: published ? 1 : 0 } }, cast.bob.token!),
        ]),
      );
      for (const answer of answers) if (answer.errors) failures.push(JSON.stringify(answer.errors));
    }
    expect(failures).toEqual([]);
  });
});

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer } from "./server.js";
import { skipUnlessPostgres } from "./postgres-only.js";

/**
 * A create asks whether its scope exists and admits the caller in the statement that inserts
 * (createRecord's `scope`, src/common/scopes.ts scopeWriteCheck): no round trip of its own, nothing can
 * change between the check and the insert, and a refusal comes before anything about the scope's content.
 */
describe("the scope check of a create", () => {
  let server: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    server = await startServer();
    cast = await server.cast("scopecheck");
  });
  afterAll(() => server?.close());

  const page = (scopeId: number, extra: Record<string, unknown> = {}) => ({ title: "Checked page", pagetext: "Text.", scope: "group", scope_id: scopeId, state: 1, ...extra });

  it("costs no statement of its own: a member's create in a group is one statement, which answers it too", async () => {
    const created = await server.recordQueries(() => server.rest("POST", "/wiki", { token: cast.member.token, body: page(cast.groupId) }));
    expect(created.result.status).toBe(201);
    expect(created.queries, created.queries.join("\n")).toHaveLength(1);
  });

  it("refuses an outsider before telling whether a page name is taken in the group (403, not 409)", async () => {
    const taken = await server.rest("POST", "/wiki", { token: cast.member.token, body: page(cast.groupId, { pagename: "secretplan" }) });
    expect(taken.status).toBe(201);
    const outsider = await server.rest("POST", "/wiki", { token: cast.alice.token, body: page(cast.groupId, { pagename: "secretplan" }) });
    expect(outsider.status).toBe(403);
    const blog = await server.rest("POST", "/blog", { token: cast.alice.token, body: { title: "T", content: "C", scope: "group", scope_id: cast.groupId, alias: "x" } });
    expect(blog.status).toBe(403);
  });

  it("names scopeId for a group that does not exist, for administrators too", async () => {
    for (const token of [cast.admin.token, cast.member.token]) {
      const missing = await server.rest("POST", "/wiki", { token, body: page(987654) });
      expect(missing.status).toBe(400);
      expect(missing.body.errors?.[0]?.parameter).toBe("scope_id");
    }
  });

  it("locks only the membership a write depends on: the writer's memberships in their other groups are left as they were", async () => {
    // A membership read FOR SHARE gets the write's transaction in its row's xmax (a lock is a tuple write);
    // a row the write never locked keeps its xmax. Locking every membership of the user, as the group
    // kind's sub-selects did, wrote each of them on every write and held up the other groups' transitions.
    const prisma = server.app.db.prisma;
    const other = await prisma.group.create({ data: { cn: "scopecheckothergroup", title: "Other group" } });
    await prisma.groupMember.createMany({
      data: [
        { groupId: other.id, userId: cast.member.id, status: "member" },
        { groupId: other.id, userId: cast.manager.id, status: "member", manager: true },
      ],
    });
    const othersLocks = async () =>
      prisma.$queryRaw<{ user_id: number; xmax: string }[]>`SELECT user_id, xmax::text AS xmax FROM group_members WHERE group_id = ${other.id} ORDER BY user_id`;
    const before = await othersLocks();
    // A member's create (the writers' check), a manager's change to that member's page (the locked record's
    // managers) and a manager's announcement (a managers-only create), all in the first group.
    const created = await server.rest("POST", "/wiki", { token: cast.member.token, body: page(cast.groupId) });
    expect(created.status).toBe(201);
    expect((await server.rest("PATCH", `/wiki/${created.body.id}`, { token: cast.manager.token, body: { title: "Changed by the manager" } })).status).toBe(200);
    expect((await server.rest("POST", `/groups/${cast.groupId}/announcements`, { token: cast.manager.token, body: { title: "News", content: "Text." } })).status).toBe(201);
    const lockedHere = await prisma.$queryRaw<{ xmax: string }[]>`SELECT xmax::text AS xmax FROM group_members WHERE group_id = ${cast.groupId} AND user_id = ${cast.member.id}`;
    expect(lockedHere[0]!.xmax).not.toBe("0"); // the membership the create depended on was locked
    expect(await othersLocks()).toEqual(before);
  });

  it("a create into a group being deleted waits for the delete and is refused: nothing is left in the deleted group's scope", async (context) => {
    skipUnlessPostgres(context, "a delete in another transaction at the same time", "PGlite runs one transaction at a time");
    const { groupId, member } = await server.cast("scopecheckgone");
    const deleting = new pg.Client({ connectionString: server.databaseUrl });
    await deleting.connect();
    try {
      // What deleting a group does first: lock its row (changeRecord), then remove its content and it.
      await deleting.query("BEGIN");
      await deleting.query("SELECT id FROM groups WHERE id = $1 FOR UPDATE", [groupId]);
      const create = server.rest("POST", "/wiki", { token: member.token, body: page(groupId) });
      const early = await Promise.race([create.then(() => "answered"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 500))]);
      expect(early).toBe("waiting");
      await deleting.query("DELETE FROM wiki_pages WHERE scope = 'group' AND scope_id = $1", [groupId]);
      await deleting.query("DELETE FROM groups WHERE id = $1", [groupId]);
      await deleting.query("COMMIT");
      const answered = await create;
      expect(answered.status).toBe(400);
      expect(answered.body.errors?.[0]?.parameter).toBe("scope_id");
      const left = await deleting.query("SELECT count(*)::int AS n FROM wiki_pages WHERE scope = 'group' AND scope_id = $1", [groupId]);
      expect(left.rows[0].n).toBe(0);
    } finally {
      await deleting.end();
    }
  });
  it("a member removed while their create waits cannot write after the removal (the membership is read as it is then, not as the create's snapshot had it)", async (context) => {
    skipUnlessPostgres(context, "a removal in another transaction at the same time", "PGlite runs one transaction at a time");
    const { groupId, member } = await server.cast("scopecheckremoved");
    const removing = new pg.Client({ connectionString: server.databaseUrl });
    await removing.connect();
    try {
      // What removing a member does: lock the group's row (changeRecord), then delete the membership.
      await removing.query("BEGIN");
      await removing.query("SELECT id FROM groups WHERE id = $1 FOR UPDATE", [groupId]);
      const create = server.rest("POST", "/wiki", { token: member.token, body: page(groupId) });
      const early = await Promise.race([create.then(() => "answered"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 500))]);
      expect(early).toBe("waiting");
      await removing.query("DELETE FROM group_members WHERE group_id = $1 AND user_id = $2", [groupId, member.id]);
      await removing.query("COMMIT");
      const answered = await create;
      expect(answered.status, JSON.stringify(answered.body)).toBe(403);
      const made = await removing.query("SELECT count(*)::int AS n FROM wiki_pages WHERE scope = 'group' AND scope_id = $1", [groupId]);
      expect(made.rows[0].n).toBe(0);
    } finally {
      await removing.end();
    }
  });

  it("a manager demoted while their announcement waits cannot write it after the demotion (the manager flag is read as it is then)", async (context) => {
    skipUnlessPostgres(context, "a demotion in another transaction at the same time", "PGlite runs one transaction at a time");
    const { groupId, manager } = await server.cast("scopecheckdemoted");
    const demoting = new pg.Client({ connectionString: server.databaseUrl });
    await demoting.connect();
    try {
      // What demoting a manager does: lock the group's row (changeRecord), then clear the flag.
      await demoting.query("BEGIN");
      await demoting.query("SELECT id FROM groups WHERE id = $1 FOR UPDATE", [groupId]);
      const create = server.rest("POST", `/groups/${groupId}/announcements`, { token: manager.token, body: { title: "Late news", content: "Text." } });
      const early = await Promise.race([create.then(() => "answered"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 500))]);
      expect(early).toBe("waiting");
      await demoting.query("UPDATE group_members SET manager = false WHERE group_id = $1 AND user_id = $2", [groupId, manager.id]);
      await demoting.query("COMMIT");
      const answered = await create;
      expect(answered.status, JSON.stringify(answered.body)).toBe(403);
      const made = await demoting.query("SELECT count(*)::int AS n FROM announcements WHERE scope = 'group' AND scope_id = $1", [groupId]);
      expect(made.rows[0].n).toBe(0);
    } finally {
      await demoting.end();
    }
  });

  it("a manager demoted while their change to another member's page waits cannot make it after the demotion (the lock on the record reads the manager flag as it is then)", async (context) => {
    skipUnlessPostgres(context, "a demotion in another transaction at the same time", "PGlite runs one transaction at a time");
    const { groupId, member, manager } = await server.cast("scopecheckdemotedchange");
    const made = await server.rest("POST", "/wiki", { token: member.token, body: page(groupId) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const demoting = new pg.Client({ connectionString: server.databaseUrl });
    await demoting.connect();
    try {
      // The demotion's change to the membership row, not yet committed.
      await demoting.query("BEGIN");
      await demoting.query("UPDATE group_members SET manager = false WHERE group_id = $1 AND user_id = $2", [groupId, manager.id]);
      const change = server.rest("PATCH", `/wiki/${made.body.id}`, { token: manager.token, body: { title: "Changed by a manager" } });
      const early = await Promise.race([change.then(() => "answered"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 500))]);
      expect(early).toBe("waiting");
      await demoting.query("COMMIT");
      const answered = await change;
      expect(answered.status, JSON.stringify(answered.body)).toBe(403);
      const stored = await demoting.query("SELECT title FROM wiki_pages WHERE id = $1", [made.body.id]);
      expect(stored.rows[0].title).toBe("Checked page");
    } finally {
      await demoting.end();
    }
  });

  it("a manager's change racing their own demotion, made as the group's transitions make it (the group's row first), waits for it and is refused: no deadlock", async (context) => {
    skipUnlessPostgres(context, "a demotion in another transaction at the same time", "PGlite runs one transaction at a time");
    const { groupId, manager, admin } = await server.cast("scopecheckdemotionorder");
    const made = await server.rest("POST", `/groups/${groupId}/announcements`, { token: admin.token, body: { title: "Ordered", content: "News." } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const demoting = new pg.Client({ connectionString: server.databaseUrl });
    await demoting.connect();
    try {
      // A membership transition locks the group's row first (changeRecord on the group), then the membership.
      await demoting.query("BEGIN");
      await demoting.query("SELECT 1 FROM groups WHERE id = $1 FOR UPDATE", [groupId]);
      const change = server.rest("PATCH", `/groups/${groupId}/announcements/${made.body.id}`, { token: manager.token, body: { title: "Changed by a manager" } });
      const early = await Promise.race([change.then(() => "answered"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 500))]);
      expect(early).toBe("waiting");
      await demoting.query("UPDATE group_members SET manager = false WHERE group_id = $1 AND user_id = $2", [groupId, manager.id]);
      await demoting.query("COMMIT");
      const answered = await change;
      expect(answered.status, JSON.stringify(answered.body)).toBe(403);
      const stored = await demoting.query("SELECT title FROM announcements WHERE id = $1", [made.body.id]);
      expect(stored.rows[0].title).toBe("Ordered");
    } finally {
      await demoting.end();
    }
  });

  it("a create into the member scope of an account being deleted waits for the deletion and is refused: nothing is left in the deleted account's scope", async (context) => {
    skipUnlessPostgres(context, "a deletion in another transaction at the same time", "PGlite runs one transaction at a time");
    const leaving = await server.user({ username: "scopecheckleaving" });
    const deleting = new pg.Client({ connectionString: server.databaseUrl });
    await deleting.connect();
    try {
      // Deleting the account holds its row (the DELETE's own lock) until it commits.
      await deleting.query("BEGIN");
      await deleting.query("DELETE FROM users WHERE id = $1", [leaving.id]);
      const create = server.rest("POST", "/wiki", { token: cast.admin.token, body: { title: "Left behind", pagetext: "Text.", scope: "member", scope_id: leaving.id, state: 1 } });
      const early = await Promise.race([create.then(() => "answered"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 500))]);
      expect(early).toBe("waiting");
      await deleting.query("COMMIT");
      const answered = await create;
      expect(answered.status, JSON.stringify(answered.body)).toBe(400);
      expect(answered.body.errors?.[0]?.parameter).toBe("scope_id");
      const left = await deleting.query("SELECT count(*)::int AS n FROM wiki_pages WHERE scope = 'member' AND scope_id = $1", [leaving.id]);
      expect(left.rows[0].n).toBe(0);
    } finally {
      await deleting.end();
    }
  });
});

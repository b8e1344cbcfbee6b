import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../../test/server.js";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import type { RequestContext } from "../common/context.js";
import { groupMembers, standingSql } from "./service.js";
import { groupsManagedBy } from "./scope.js";
import { describePlan, explainNodes, explainPlan, nodesOf, type PlanNode } from "../../test/plan.js";

/** What is specific to groups' REST API (docs/decisions.md, "Groups"); the membership rules are membership.test.ts. */
let server: TestServer;
let owner: TestUser, member: TestUser, stranger: TestUser, admin: TestUser;
let serial = 0;

beforeAll(async () => {
  server = await startServer();
  [owner, member, stranger, admin] = await Promise.all([server.user(), server.user(), server.user(), server.user({ admin: true })]);
});
afterAll(() => server?.close());

const cnOf = () => `grp${++serial}x${Date.now().toString(36)}`;
const create = (body: Record<string, unknown>, token = owner.token) =>
  server.rest("POST", "/groups", { token, body: { cn: cnOf(), title: "A group", join_policy: "open", discoverability: "visible", ...body } });

describe("groups over REST", () => {
  it("creates a group (201), shows policies by name, takes names or the original's numbers, and refuses others naming the parameter", async () => {
    const made = await create({ join_policy: "2", discoverability: 1, tags: "a, b, a", public_description: "Hello" });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ join_policy: "invite_only", discoverability: "hidden", description: "A group", tags: "a, b", public_description: "Hello", created_by: owner.id });
    const bad = await create({ join_policy: "sometimes" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ parameter: "join_policy" })]);
    expect((await create({ discoverability: 7 })).body.errors).toEqual([expect.objectContaining({ parameter: "discoverability" })]);
  });

  it("checks the cn: format, reserved words (400 naming cn), taken (409 naming cn); it never changes", async () => {
    for (const cn of ["Upper", "1abc", "with-dash", "list", "members"]) {
      const response = await create({ cn });
      expect(response.status, cn).toBe(400);
      expect(response.body.errors[0].parameter, cn).toBe("cn");
    }
    const cn = cnOf();
    expect((await create({ cn })).status).toBe(201);
    const taken = await create({ cn });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0].parameter).toBe("cn");
    const put = await server.rest("PUT", `/groups/${cn}`, { token: owner.token, body: { cn: "other", title: "Renamed", join_policy: "open", discoverability: "visible" } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await server.rest("GET", `/groups/${cn}`, { query: { fields: "cn,title" } })).body).toMatchObject({ cn, title: "Renamed" });
  });

  it("reads by gidNumber or cn; `fields` picks keys (gidNumber always), unknown names are 400 naming fields", async () => {
    const made = await create({ private_description: "members only" });
    const { gidNumber, cn } = made.body;
    const byCn = await server.rest("GET", `/groups/${cn}`);
    expect(byCn.status).toBe(200);
    expect(Object.keys(byCn.body).sort()).toEqual(["cn", "created", "created_by", "description", "gidNumber"]);
    expect((await server.rest("GET", `/groups/${gidNumber}`, { query: { fields: "title,url" } })).body).toEqual({ gidNumber, title: "A group", url: `/groups/${cn}` });
    const unknown = await server.rest("GET", `/groups/${gidNumber}`, { query: { fields: "title,secret" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ parameter: "fields" })]);
    const asked = { query: { fields: "private_description" } };
    expect((await server.rest("GET", `/groups/${cn}`, { ...asked, token: owner.token })).body.private_description).toBe("members only");
    expect((await server.rest("GET", `/groups/${cn}`, { ...asked, token: admin.token })).body.private_description).toBe("members only");
    expect((await server.rest("GET", `/groups/${cn}`, { ...asked, token: stranger.token })).body.private_description).toBeNull();
    expect((await server.rest("GET", `/groups/${cn}`, asked)).body.private_description).toBeNull();
  });

  it("lists as a bare array with X-Total-Count, searching title and cn; hidden groups only to their members", async () => {
    const word = `wombat${Date.now().toString(36)}`;
    await create({ title: `The ${word} club` });
    const hidden = await create({ title: `Secret ${word}s`, discoverability: "hidden" });
    const list = (token?: string) => server.rest("GET", "/groups/list", { token, query: { search: word, fields: "gidNumber,title,private_description" } });
    const anonymous = await list();
    expect(Array.isArray(anonymous.body)).toBe(true);
    expect(anonymous.body).toHaveLength(1);
    expect(anonymous.headers.get("X-Total-Count")).toBe("1");
    const mine = await list(owner.token);
    expect(mine.body.map((group: { title: string }) => group.title).sort()).toEqual([`Secret ${word}s`, `The ${word} club`]);
    expect(mine.headers.get("X-Total-Count")).toBe("2");
    expect((await list(stranger.token)).headers.get("X-Total-Count")).toBe("1");
    expect((await server.rest("GET", `/groups/${hidden.body.gidNumber}`, { token: stranger.token })).status).toBe(404);
  });

  it("lets managers and administrators update and delete; members 403, strangers to a hidden group 404", async () => {
    const made = await create({ discoverability: "hidden" });
    const id = made.body.gidNumber;
    await server.app.db.prisma.groupMember.create({ data: { groupId: id, userId: member.id, status: "member" } });
    const body = { title: "Changed", join_policy: "closed", discoverability: "hidden" };
    expect((await server.rest("PUT", `/groups/${id}`, { token: member.token, body })).status).toBe(403);
    expect((await server.rest("PUT", `/groups/${id}`, { token: stranger.token, body })).status).toBe(404);
    expect((await server.rest("PUT", `/groups/${id}`, { token: admin.token, body })).body).toMatchObject({ title: "Changed", join_policy: "closed" });
    expect((await server.rest("DELETE", `/groups/${id}`, { token: member.token })).status).toBe(403);
    expect((await server.rest("DELETE", `/groups/${id}`, { token: owner.token })).status).toBe(204);
  });

  it("a PUT that leaves out join_policy and discoverability keeps them (PUT never loosens privacy): a restricted hidden group stays so", async () => {
    const made = await create({ join_policy: "restricted", discoverability: "hidden" });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const put = await server.rest("PUT", `/groups/${made.body.gidNumber}`, { token: owner.token, body: { title: "Only the title" } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ title: "Only the title", join_policy: "restricted", discoverability: "hidden" });
    expect((await server.rest("GET", `/groups/${made.body.gidNumber}`, { token: stranger.token })).status).toBe(404);
  });
});

describe("GET /groups/{id}/members/list", () => {
  it("lists members, managers, invitees and applicants; the waiting ones to managers and administrators only", async () => {
    const made = await create({ join_policy: "restricted" });
    const id = made.body.gidNumber;
    const [invitee, applicant] = await Promise.all([server.user(), server.user()]);
    await server.app.db.prisma.groupMember.createMany({
      data: [
        { groupId: id, userId: member.id, status: "member" },
        { groupId: id, userId: invitee.id, status: "invitee" },
        { groupId: id, userId: applicant.id, status: "applicant" },
      ],
    });
    const entry = (user: TestUser) => ({ uidNumber: user.id, username: user.username, name: `Name of ${user.username}` });
    // Each list is in user id order (the accounts were made concurrently, so their ids come in any order).
    const members = [owner, member].sort((a, b) => a.id - b.id).map(entry);
    const asManager = await server.rest("GET", `/groups/${made.body.cn}/members/list`, { token: owner.token });
    expect(asManager.body).toEqual({ members, managers: [entry(owner)], invitees: [entry(invitee)], applicants: [entry(applicant)] });
    for (const token of [member.token, stranger.token, undefined]) {
      const seen = await server.rest("GET", `/groups/${id}/members/list`, { token });
      expect(seen.body).toEqual({ members, managers: [entry(owner)], invitees: [], applicants: [] });
    }
    expect((await server.rest("GET", `/groups/${id}/members/list`, { token: admin.token, query: { list: "applicants" } })).body).toEqual({
      members: [],
      managers: [],
      invitees: [],
      applicants: [entry(applicant)],
    });
    const unknown = await server.rest("GET", `/groups/${id}/members/list`, { query: { list: "members,owners" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ parameter: "list" })]);
  });

  it("pages each list and costs one statement for 100 members as for 2", async () => {
    const made = await create({});
    const id = made.body.gidNumber;
    const people = await server.app.db.prisma.user.createManyAndReturn({
      data: Array.from({ length: 100 }, (_, index) => ({ username: `many${index}x${id}`, email: `many${index}x${id}@example.test`, name: `Many ${index}`, passwordHash: "x" })),
    });
    const small = await server.recordQueries(() => server.rest("GET", `/groups/${id}/members/list`, { query: { limit: 0 } }));
    expect(small.result.body.members).toHaveLength(1);
    await server.app.db.prisma.groupMember.createMany({ data: people.map((person) => ({ groupId: id, userId: person.id, status: "member" as const })) });
    const large = await server.recordQueries(() => server.rest("GET", `/groups/${id}/members/list`, { query: { limit: 0 } }));
    expect(large.result.body.members).toHaveLength(100);
    expect(large.queries).toHaveLength(small.queries.length);
    expect(large.queries).toHaveLength(1);
    const page = await server.rest("GET", `/groups/${id}/members/list`, { query: { limit: 10, start: 95 } });
    expect(page.body.members).toHaveLength(6);
  });
  it("reads each list through the (group_id, status, user_id) index: no sequential scan of group_members or users (plan test)", async () => {
    const sql = sqlClientOf(server.app.db.prisma);
    // 3,000 accounts; a group with 2,000 members (2 managers), 50 invitees and 50 applicants; 4 more groups of 1,000 members.
    const [made] = await sql.query<{ first: number }>(Prisma.sql`WITH made AS (
        INSERT INTO users (username, email, name, password_hash) SELECT 'planmember' || g, 'planmember' || g || '@example.test', 'Plan member ' || g, 'x'
        FROM generate_series(1, 3000) g RETURNING id) SELECT min(id)::int AS first FROM made`);
    const first = made!.first;
    const groups = await sql.query<{ id: number }>(Prisma.sql`INSERT INTO groups (cn, title) SELECT 'planmembers' || g, 'Plan ' || g FROM generate_series(1, 5) g RETURNING id`);
    const [target, ...others] = groups.map((group) => Number(group.id));
    await sql.query(Prisma.sql`INSERT INTO group_members (group_id, user_id, status, manager)
      SELECT ${target}, ${first} + g, (CASE WHEN g < 2000 THEN 'member' WHEN g < 2050 THEN 'invitee' ELSE 'applicant' END)::"GroupMemberStatus", g < 2 FROM generate_series(0, 2099) g`);
    for (const other of others) await sql.query(Prisma.sql`INSERT INTO group_members (group_id, user_id, status) SELECT ${other}, ${first} + g, 'member' FROM generate_series(0, 999) g`);
    await sql.query(Prisma.sql`ANALYZE group_members`);
    await sql.query(Prisma.sql`ANALYZE users`);
    // The service's own statement, explained instead of run (the context's client prefixes EXPLAIN).
    let plan: PlanNode | undefined;
    const explaining: RequestContext = {
      db: server.app.db.prisma,
      viewer: { user: { id: admin.id, username: "admin", isAdmin: true }, via: "token" },
      config: undefined as never,
      tx: {
        query: async (statement: Prisma.Sql) => {
          plan = await explainPlan(sql, statement);
          return [];
        },
        transaction: () => Promise.reject(new Error("not here")),
      },
    } as unknown as RequestContext;
    await groupMembers(explaining, String(target), { limit: 25 }).catch(() => undefined);
    const all = nodesOf(plan!);
    const described = describePlan(all);
    expect(all.filter((node) => node["Node Type"] === "Seq Scan" && ["group_members", "users"].includes(node["Relation Name"] ?? "")), described).toEqual([]);
    expect(all.some((node) => node["Relation Name"] === "group_members" && /group_id_status_user_id/.test(node["Index Name"] ?? "")), described).toBe(true);
  });

  it("finds a group's managers without reading its other members: the last-manager count, the managers list, a user's managed groups (plan test)", async () => {
    const sql = sqlClientOf(server.app.db.prisma);
    // A group of 3,000 members, 3 of them managers; each member is also a plain member of 3 other groups.
    const [made] = await sql.query<{ first: number }>(Prisma.sql`WITH made AS (
        INSERT INTO users (username, email, name, password_hash) SELECT 'planmgr' || g, 'planmgr' || g || '@example.test', 'Plan manager ' || g, 'x'
        FROM generate_series(1, 3000) g RETURNING id) SELECT min(id)::int AS first FROM made`);
    const first = made!.first;
    const groups = await sql.query<{ id: number }>(Prisma.sql`INSERT INTO groups (cn, title) SELECT 'planmanagers' || g, 'Plan ' || g FROM generate_series(1, 4) g RETURNING id`);
    const [target, ...others] = groups.map((group) => Number(group.id));
    await sql.query(Prisma.sql`INSERT INTO group_members (group_id, user_id, status, manager) SELECT ${target}, ${first} + g, 'member', g % 1000 = 0 FROM generate_series(0, 2999) g`);
    for (const other of others) await sql.query(Prisma.sql`INSERT INTO group_members (group_id, user_id, status) SELECT ${other}, ${first} + g, 'member' FROM generate_series(0, 2999) g`);
    await sql.query(Prisma.sql`VACUUM ANALYZE group_members`);
    /** The group_members rows a statement reads: those its scans return plus those their filters drop. */
    const membershipRowsRead = async (statement: Prisma.Sql) => {
      const all = await explainNodes(sql, statement, { analyze: true });
      const scans = all.filter((node) => node["Relation Name"] === "group_members");
      const described = describePlan(all, (node) => ` rows ${node["Actual Rows"]} removed ${node["Rows Removed by Filter"] ?? 0}`);
      return { read: scans.reduce((sum, node) => sum + ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1), 0), described };
    };
    // A membership transition's standing: the subject's row and the group's manager count (a group never loses its last manager).
    const standing = await membershipRowsRead(standingSql(target!, first));
    expect(standing.read, standing.described).toBeLessThanOrEqual(10);
    // The managers list, as the members list asks it.
    const managers = await membershipRowsRead(
      Prisma.sql`SELECT m.user_id FROM group_members m WHERE m.group_id = ${target} AND m.status = 'member' AND m.manager ORDER BY m.user_id LIMIT 25`,
    );
    expect(managers.read, managers.described).toBeLessThanOrEqual(10);
    // The groups a user manages (the group scope kind's managers): by the user's own rows.
    const managed = await membershipRowsRead(Prisma.sql`SELECT group_id FROM (${groupsManagedBy(first)}) managed`);
    expect(managed.read, managed.described).toBeLessThanOrEqual(10);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer, type TestUser } from "./server.js";

/**
 * Membership rows (issue 17): one row per (group, user) with a status and a manager flag. Only members
 * open the group's private content and write in it; invitees and applicants are outsiders until they are
 * members; managers are members with the flag and manage the group's records.
 */
const AREAS = [
  { path: "/wiki", key: "pages", privateLevel: 4, body: (title: string) => ({ title, pagetext: `Text of ${title}` }) },
  { path: "/blog", key: "posts", privateLevel: 5, body: (title: string) => ({ title, content: `Content of ${title}` }) },
] as const;

let server: TestServer;
let cast: Cast;
let invitee: TestUser, applicant: TestUser;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("membership");
  [invitee, applicant] = await Promise.all([server.user(), server.user()]);
  await server.app.db.prisma.groupMember.createMany({
    data: [
      { groupId: cast.groupId, userId: invitee.id, status: "invitee" },
      { groupId: cast.groupId, userId: applicant.id, status: "applicant" },
    ],
  });
});
afterAll(() => server?.close());

describe.each(AREAS)("$path in a group", ({ path, key, privateLevel, body }) => {
  const group = { scope: "group", scope_id: 0 };
  let privateId: number;

  beforeAll(async () => {
    group.scope_id = cast.groupId;
    const made = await server.rest("POST", path, { token: cast.member.token, body: { ...body(`Members only ${path}`), ...group, state: 1, access: privateLevel } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    privateId = made.body.id;
  });

  it("invitees and applicants neither see the group's private records nor write in it; members and managers do", async () => {
    for (const [who, token, member] of [
      ["member", cast.member.token, true],
      ["manager", cast.manager.token, true],
      ["invitee", invitee.token, false],
      ["applicant", applicant.token, false],
    ] as const) {
      expect((await server.rest("GET", `${path}/${privateId}`, { token })).status, who).toBe(member ? 200 : 404);
      for (const search of [{}, { search: "members only" }] as Record<string, string>[]) {
        const list = await server.rest("GET", `${path}/list`, { token, query: { ...group, limit: 0, ...search } });
        expect(list.body[key].length, who).toBe(member ? 1 : 0);
        expect(list.body.total, who).toBe(member ? 1 : 0);
      }
    }
    for (const [who, token, member] of [
      ["member", cast.member.token, true],
      ["invitee", invitee.token, false],
      ["applicant", applicant.token, false],
    ] as const) {
      const written = await server.rest("POST", path, { token, body: { ...body(`By the ${who} ${path}`), ...group } });
      expect(written.status, who).toBe(member ? 201 : 403);
    }
  });

  it("the manager flag manages the group's records; a plain member does not manage another's", async () => {
    const change = { ...body(`Changed ${path}`), ...group, state: 1, access: privateLevel };
    const byManager = await server.rest("PUT", `${path}/${privateId}`, { token: cast.manager.token, body: change });
    expect(byManager.status, JSON.stringify(byManager.body)).toBe(200);
    const managersOwn = await server.rest("POST", path, { token: cast.manager.token, body: { ...body(`The manager's ${path}`), ...group, state: 1 } });
    expect((await server.rest("PUT", `${path}/${managersOwn.body.id}`, { token: cast.member.token, body: change })).status).toBe(403);
  });
});

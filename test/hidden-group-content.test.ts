import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer, type TestUser } from "./server.js";

/**
 * A hidden group's content is as hidden as the group (docs/decisions.md, "Groups"): whoever may not find
 * the group in a list — anonymous callers, signed-in strangers, invitees, applicants — gets none of its
 * records either, at any access level: empty lists with total 0 (plain and searched), 404 reads, through
 * REST and GraphQL. Members and administrators see them; a creator who left still sees their own. When the
 * group becomes visible again its public and registered records show as before. The rule is the group
 * scope kind's `secluded` (src/groups/scope.ts), applied by the kit's visibility rule and totals.
 */
const AREAS = [
  { path: "/wiki", key: "pages", graphql: "wikiPages", levels: { public: 0, registered: 1 }, body: (title: string) => ({ title, pagetext: `Text of ${title}` }) },
  { path: "/blog", key: "posts", graphql: "blogEntries", levels: { public: 1, registered: 2 }, body: (title: string) => ({ title, content: `Content of ${title}` }) },
] as const;

let server: TestServer;
let cast: Cast;
let invitee: TestUser, applicant: TestUser, leaver: TestUser;
let cn: string;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("hiddencontent");
  cn = "hiddencontent";
  [invitee, applicant, leaver] = await Promise.all([server.user(), server.user(), server.user()]);
  await server.app.db.prisma.groupMember.createMany({
    data: [
      { groupId: cast.groupId, userId: invitee.id, status: "invitee" },
      { groupId: cast.groupId, userId: applicant.id, status: "applicant" },
    ],
  });
});
afterAll(() => server?.close());

const putGroup = (discoverability: "visible" | "hidden") =>
  server.rest("PUT", `/groups/${cast.groupId}`, { token: cast.manager.token, body: { title: "hiddencontent", join_policy: "open", discoverability } });

async function graphqlList(field: string, token: string | undefined, scopeId: number) {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query: `query($scopeId: Int) { ${field}(scope: "group", scopeId: $scopeId, limit: 0) { total items { id } } }`, variables: { scopeId } }),
  });
  const body = (await response.json()) as { data?: Record<string, { total: number; items: { id: number }[] }>; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data![field]!;
}

describe.each(AREAS)("$path records of a hidden group", ({ path, key, graphql, levels, body }) => {
  const ids: number[] = [];
  let leaversId: number;

  beforeAll(async () => {
    for (const [level, access] of Object.entries(levels)) {
      const made = await server.rest("POST", path, { token: cast.member.token, body: { ...body(`Hidden ${level} ${path}`), scope: "group", scope_id: cast.groupId, state: 1, access } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      ids.push(made.body.id);
    }
    await server.app.db.prisma.groupMember.create({ data: { groupId: cast.groupId, userId: leaver.id, status: "member" } });
    const own = await server.rest("POST", path, { token: leaver.token, body: { ...body(`Hidden leaver ${path}`), scope: "group", scope_id: cast.groupId, state: 1, access: levels.public } });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    leaversId = own.body.id;
    await server.app.db.prisma.groupMember.deleteMany({ where: { groupId: cast.groupId, userId: leaver.id } });
    expect((await putGroup("hidden")).status).toBe(200);
  });

  const group = () => ({ scope: "group", scope_id: cast.groupId, limit: 0 });
  const callers = (): [string, string | undefined][] => [
    ["anonymous", undefined],
    ["stranger", cast.alice.token],
    ["invitee", invitee.token],
    ["applicant", applicant.token],
  ];

  it("non-members get empty lists with total 0 and 404 reads, through REST and GraphQL", async () => {
    for (const [who, token] of callers()) {
      for (const search of [{}, { search: "hidden" }] as Record<string, string>[]) {
        const list = await server.rest("GET", `${path}/list`, { token, query: { ...group(), ...search } });
        expect(list.status, who).toBe(200);
        expect(list.body[key], `${who} ${JSON.stringify(search)}`).toEqual([]);
        expect(list.body.total, `${who} ${JSON.stringify(search)}`).toBe(0);
      }
      expect(await graphqlList(graphql, token, cast.groupId), who).toEqual({ total: 0, items: [] });
      for (const id of ids) expect((await server.rest("GET", `${path}/${id}`, { token })).status, `${who} reads ${id}`).toBe(404);
    }
  });

  it("members and administrators see them; a creator who left sees their own only", async () => {
    for (const [who, token] of [
      ["member", cast.member.token],
      ["manager", cast.manager.token],
      ["admin", cast.admin.token],
    ] as const) {
      const list = await server.rest("GET", `${path}/list`, { token, query: group() });
      expect(list.body.total, who).toBe(3);
      expect(list.body[key].length, who).toBe(3);
      expect((await graphqlList(graphql, token, cast.groupId)).total, who).toBe(3);
      for (const id of ids) expect((await server.rest("GET", `${path}/${id}`, { token })).status, `${who} reads ${id}`).toBe(200);
    }
    const own = await server.rest("GET", `${path}/list`, { token: leaver.token, query: group() });
    expect(own.body[key].map((record: { id: number }) => record.id)).toEqual([leaversId]);
    expect(own.body.total).toBe(1);
    expect((await server.rest("GET", `${path}/list`, { token: leaver.token, query: { ...group(), search: "hidden" } })).body.total).toBe(1);
    expect((await server.rest("GET", `${path}/${leaversId}`, { token: leaver.token })).status).toBe(200);
    expect((await server.rest("GET", `${path}/${ids[0]}`, { token: leaver.token })).status).toBe(404);
  });

  it("the group plugin paths: members list the records, invitees (who may read the group) none, others 404", async () => {
    const plugin = path.slice(1);
    expect((await server.rest("GET", `/groups/${cn}/${plugin}/list`, { token: cast.member.token, query: { limit: 0 } })).body.total).toBe(3);
    const invited = await server.rest("GET", `/groups/${cn}/${plugin}/list`, { token: invitee.token, query: { limit: 0 } });
    expect(invited.status).toBe(200);
    expect(invited.body.total).toBe(0);
    expect((await server.rest("GET", `/groups/${cn}/${plugin}/${ids[0]}`, { token: invitee.token })).status).toBe(404);
    expect((await server.rest("GET", `/groups/${cn}/${plugin}/list`, { token: cast.alice.token })).status).toBe(404);
  });

  it("non-members writing into it are told it does not exist, as for a missing group; members write", async () => {
    const missing = await server.rest("POST", path, { token: cast.alice.token, body: { ...body(`Nowhere ${path}`), scope: "group", scope_id: 999_999 } });
    expect(missing.status).toBe(400);
    for (const [who, token] of callers().slice(1)) {
      const refused = await server.rest("POST", path, { token, body: { ...body(`Intruding ${path}`), scope: "group", scope_id: cast.groupId } });
      expect(refused.status, who).toBe(400);
      expect(refused.body.message, who).toBe(missing.body.message.replace("999999", String(cast.groupId)));
    }
    const written = await server.rest("POST", path, { token: cast.member.token, body: { ...body(`Members write ${path}`), scope: "group", scope_id: cast.groupId, state: 0 } });
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    expect((await server.rest("DELETE", `${path}/${written.body.id}`, { token: cast.alice.token })).status).toBe(404);
    expect((await server.rest("DELETE", `${path}/${written.body.id}`, { token: cast.member.token })).status).toBe(204);
  });

  it("once the group is visible again, its public and registered records show as before", async () => {
    expect((await putGroup("visible")).status).toBe(200);
    try {
      const anonymous = await server.rest("GET", `${path}/list`, { query: group() });
      expect(anonymous.body.total).toBe(2); // the public one and the leaver's
      expect((await server.rest("GET", `${path}/${ids[0]}`)).status).toBe(200);
      expect((await server.rest("GET", `${path}/${ids[1]}`)).status).toBe(404);
      for (const [who, token] of callers().slice(1)) {
        expect((await server.rest("GET", `${path}/list`, { token, query: { ...group(), search: "hidden" } })).body.total, who).toBe(3);
        expect((await graphqlList(graphql, token, cast.groupId)).total, who).toBe(3);
        expect((await server.rest("GET", `${path}/${ids[1]}`, { token })).status, who).toBe(200);
      }
    } finally {
      expect((await putGroup("hidden")).status).toBe(200);
    }
  });
});

describe("events of a hidden group's records", () => {
  it("are private whatever the record's level says (the event tells no more than a read would), public again once the group is visible", async () => {
    const eventOf = async (id: number) =>
      (await server.app.db.prisma.outboxEvent.findFirstOrThrow({ where: { area: "wiki", recordId: id, type: "wiki.pageCreated" } })).visibility;
    const create = async (title: string) => {
      const made = await server.rest("POST", "/wiki", { token: cast.member.token, body: { title, pagetext: "Text.", scope: "group", scope_id: cast.groupId, state: 1, access: 0 } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.id as number;
    };
    expect((await putGroup("hidden")).status).toBe(200);
    expect(await eventOf(await create("Public page of a hidden group"))).toBe("private");
    expect((await putGroup("visible")).status).toBe(200);
    expect(await eventOf(await create("Public page of a visible group"))).toBe("public");
  });
});

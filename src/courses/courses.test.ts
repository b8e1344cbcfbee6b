import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../../test/server.js";
import { testing } from "./testing.js";

// Paging, literal search, constant SQL statements, totals and who sees what: the shared suites (contract,
// totals, plans, hot paths, authorization matrix). Here: what courses add — the catalogue's answer, who makes and
// changes a course, and the course as a scope kind other areas write in.

let server: TestServer;
let admin: TestUser;
let manager: TestUser;
let learner: TestUser;
let bystander: TestUser;

beforeAll(async () => {
  server = await startServer();
  [admin, manager, learner, bystander] = await Promise.all([server.user({ admin: true }), server.user(), server.user(), server.user()]);
});
afterAll(() => server?.close());

const gql = (query: string, variables: Record<string, unknown>, token?: string) => server.graphqlText(query, variables, token);
const catalogue = (query: Record<string, string | number>, token?: string) => server.rest("POST", "/courses/list", { query, token });
/** A course with its manager and learner (course_members: the people's own mutations come with enrolments). */
async function course(values: Record<string, unknown> = {}) {
  const id = await testing.create(server, admin.token, values);
  await server.app.db.prisma.courseMember.createMany({
    data: [
      { courseId: id, userId: manager.id, role: "manager" },
      { courseId: id, userId: learner.id, role: "learner" },
    ],
  });
  return id;
}

describe("POST /api/courses/list", () => {
  it("answers {courses, total, success} paged by limit and limitstart, listing only what the caller may see", async () => {
    const tag = `cat${Date.now().toString(36)}`;
    const published = await course({ title: `${tag} Published`, description: "Open to all." });
    const secret = await course({ title: `${tag} Private`, access: 1 });
    const draft = await course({ title: `${tag} Draft`, state: 0 });
    const ids = async (token?: string) => ((await catalogue({ limit: 100 }, token)).body.courses as { id: number; title: string }[]).filter((item) => item.title.startsWith(tag)).map((item) => item.id);

    const anonymous = await catalogue({ limit: 1, limitstart: 0 });
    expect(anonymous.status).toBe(200);
    expect(Object.keys(anonymous.body).sort()).toEqual(["courses", "success", "total"]);
    expect(anonymous.body.success).toBe(true);
    expect(anonymous.body.courses).toHaveLength(1);
    expect(anonymous.body.courses[0]).toMatchObject({ title: expect.any(String), description: expect.any(String), alias: expect.any(String) });

    expect(await ids()).toEqual([published]);
    expect(await ids(bystander.token)).toEqual([published]);
    // A closed course (private or unpublished): its members (learners and managers) and administrators.
    expect((await ids(learner.token)).sort()).toEqual([published, secret, draft].sort());
    expect((await ids(manager.token)).sort()).toEqual([published, secret, draft].sort());
    expect((await ids(admin.token)).sort()).toEqual([published, secret, draft].sort());

    // The total counts what the caller may see, and limitstart pages it.
    const all = await catalogue({ limit: 100 }, admin.token);
    const second = await catalogue({ limit: 1, limitstart: 1 }, admin.token);
    expect(all.body.total).toBeGreaterThanOrEqual(3);
    expect(second.body.total).toBe(all.body.total);
    expect(second.body.courses[0].id).toBe(all.body.courses[1].id);
  });

  it("is version 1.0 only: another version is 404 naming it; a bad limit is 400 naming it", async () => {
    const other = await server.rest("POST", "/v1.1/courses/list", {});
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.body)).toContain("1.1");
    const bad = await catalogue({ limit: "many" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("limit");
  });

  it("is listed by GET /api/courses", async () => {
    const described = await server.rest("GET", "/courses");
    expect(described.status).toBe(200);
    expect(JSON.stringify(described.body)).toContain("/courses/list");
  });
});

describe("making and changing a course", () => {
  const CREATE = `mutation($input: CreateCourseInput!) { createCourse(input: $input) { id alias title state access } }`;
  const UPDATE = `mutation($id: ID!, $input: UpdateCourseInput!) { updateCourse(id: $id, input: $input) { id title } }`;
  const DELETE = `mutation($id: ID!) { deleteCourse(id: $id) }`;

  it("only administrators create courses; the alias comes from the title, and a taken one is 409 naming alias", async () => {
    const refused = await gql(CREATE, { input: { title: "Mine" } }, bystander.token);
    expect(refused.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const anonymous = await gql(CREATE, { input: { title: "Mine" } });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    const title = `Linear Algebra ${Date.now().toString(36)}`;
    const made = await gql(CREATE, { input: { title } }, admin.token);
    expect(made.errors).toBeUndefined();
    expect(made.data!.createCourse).toMatchObject({ title, alias: title.toLowerCase().replace(/ /g, "-"), state: 0, access: "PUBLIC" });
    const taken = await gql(CREATE, { input: { title: "Another", alias: made.data!.createCourse.alias } }, admin.token);
    expect(taken.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    expect(JSON.stringify(taken.errors)).toContain("alias");
  });

  it("its managers and administrators change it; a learner gets 403, a bystander 404 while it is closed (they cannot see it), 403 once open", async () => {
    const id = await course({ state: 0 });
    expect((await gql(UPDATE, { id, input: { title: "Renamed by its manager" } }, manager.token)).data?.updateCourse?.title).toBe("Renamed by its manager");
    expect((await gql(UPDATE, { id, input: { title: "Learner" } }, learner.token)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await gql(UPDATE, { id, input: { title: "Bystander" } }, bystander.token)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    await gql(UPDATE, { id, input: { state: 1 } }, manager.token);
    expect((await gql(UPDATE, { id, input: { title: "Bystander" } }, bystander.token)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await gql(UPDATE, { id, input: { title: "Administrator" } }, admin.token)).data?.updateCourse?.title).toBe("Administrator");
  });

  it("only its managers and administrators delete it: a learner gets 403, a bystander 404 while it is closed", async () => {
    const id = await course({ state: 0 });
    expect((await gql(DELETE, { id }, learner.token)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await gql(DELETE, { id }, bystander.token)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gql(DELETE, { id })).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    expect(await server.app.db.prisma.course.count({ where: { id } })).toBe(1);
  });

  it("a change of state or access alone keeps who sees it in step (visibility)", async () => {
    const id = await course({ state: 1 });
    const visibility = async () => (await server.app.db.prisma.course.findUniqueOrThrow({ where: { id } })).visibility;
    expect(await visibility()).toBe(0);
    for (const [input, expected] of [[{ access: "PRIVATE" }, 1], [{ state: 0 }, 1], [{ access: "PUBLIC" }, 1], [{ state: 1 }, 0], [{ state: 0, access: "PRIVATE" }, 1], [{ state: 1, access: "PUBLIC" }, 0]] as const) {
      expect((await gql(UPDATE, { id, input }, manager.token)).errors, JSON.stringify(input)).toBeUndefined();
      expect(await visibility(), JSON.stringify(input)).toBe(expected);
    }
  });

  it("deleting a course deletes what other areas keep in its scope, each with its deleted event", async () => {
    const id = await course({ state: 1 });
    const page = await server.rest("POST", "/wiki", { token: manager.token, body: { title: "Syllabus", pagetext: "Week 1.", state: 1, scope: "course", scope_id: id } });
    expect(page.status).toBe(201);
    const deleted = await gql(DELETE, { id }, manager.token);
    expect(deleted.errors).toBeUndefined();
    expect((await server.rest("GET", `/wiki/${page.body.id}`, { token: admin.token })).status).toBe(404);
    const events = await server.app.db.prisma.outboxEvent.findMany({ where: { area: "wiki", recordId: page.body.id }, orderBy: { id: "asc" } });
    expect(events.map((event) => event.type).at(-1)).toBe("wiki.pageDeleted");
  });
});

describe("a course as a scope kind (scope=course)", () => {
  it("only its managers write in it; its learners read its private records; a closed course's records are its members' only", async () => {
    const id = await course({ state: 1 });
    const inCourse = { scope: "course", scope_id: id };
    const refused = await server.rest("POST", "/wiki", { token: learner.token, body: { title: "Notes", pagetext: "Mine.", state: 1, ...inCourse } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("Only the course's managers can write in it.");
    const missing = await server.rest("POST", "/wiki", { token: admin.token, body: { title: "Nowhere", pagetext: "x", state: 1, scope: "course", scope_id: 2_000_000_000 } });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain("scope_id");

    const privatePage = await server.rest("POST", "/wiki", { token: manager.token, body: { title: "Answers", pagetext: "42.", state: 1, access: 4, ...inCourse } });
    const publicPage = await server.rest("POST", "/wiki", { token: manager.token, body: { title: "Welcome", pagetext: "Hello.", state: 1, access: 0, ...inCourse } });
    expect([privatePage.status, publicPage.status]).toEqual([201, 201]);
    const read = (pageId: number, token?: string) => server.rest("GET", `/wiki/${pageId}`, { token }).then((response) => response.status);
    expect(await read(privatePage.body.id, learner.token)).toBe(200);
    expect(await read(privatePage.body.id, bystander.token)).toBe(404);
    expect(await read(publicPage.body.id)).toBe(200);

    // Closed (unpublished, then private): its public records too are its members' (and administrators') only, in
    // reads and lists alike.
    const change = (input: Record<string, unknown>) => gql(`mutation($id: ID!, $input: UpdateCourseInput!) { updateCourse(id: $id, input: $input) { id } }`, { id, input }, manager.token);
    for (const closing of [{ state: 0 }, { state: 1, access: "PRIVATE" }]) {
      expect((await change(closing)).errors).toBeUndefined();
      expect(await read(publicPage.body.id)).toBe(404);
      expect(await read(publicPage.body.id, bystander.token)).toBe(404);
      expect(await read(publicPage.body.id, learner.token)).toBe(200);
      const listed = await server.rest("GET", "/wiki/list", { query: { ...inCourse, limit: 100 }, token: bystander.token });
      expect(listed.body).toMatchObject({ total: 0 });
      await change({ state: 1, access: "PUBLIC" });
      expect(await read(publicPage.body.id, bystander.token)).toBe(200);
      const open = await server.rest("GET", "/wiki/list", { query: { ...inCourse, limit: 100 }, token: bystander.token });
      expect(open.body).toMatchObject({ total: 1 });
    }
  });
});

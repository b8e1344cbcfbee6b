import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { startServer, type TestServer, type TestUser } from "../../test/server.js";
import { testing } from "./testing.js";

// A course's people and outline through GraphQL (src/courses/people.ts, src/courses/outline.ts): who may write
// what, who sees it, the chain from an asset group up to its course, and that every write raised its event.

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

const sql = () => sqlClientOf(server.app.db.prisma);
const gql = (query: string, variables: Record<string, unknown>, token?: string) => server.graphqlText(query, variables, token);
const code = (answer: { errors?: { extensions?: { code?: unknown } }[] }) => answer.errors?.[0]?.extensions?.code;
const parameters = (answer: { errors?: { extensions?: { errors?: { parameter: string }[] } }[] }) => answer.errors?.[0]?.extensions?.errors?.map((error) => error.parameter);

const ADD_MANAGER = `mutation($course: ID!, $user: String!) { addCourseManager(course: $course, user: $user) { id } }`;
const ENROL = `mutation($course: ID!, $user: String!, $offering: ID!, $section: ID) { enrolInCourse(course: $course, user: $user, offering: $offering, section: $section) { id } }`;
const REMOVE = `mutation($course: ID!, $user: String!) { removeFromCourse(course: $course, user: $user) { id } }`;
const OFFERING = `mutation($input: CreateCourseOfferingInput!) { createCourseOffering(input: $input) { id alias scope scopeId } }`;
const SECTION = `mutation($input: CreateCourseSectionInput!) { createCourseSection(input: $input) { id scope scopeId } }`;
const UNIT = `mutation($input: CreateCourseUnitInput!) { createCourseUnit(input: $input) { id title scope scopeId offeringId } }`;
const UPDATE_UNIT = `mutation($id: ID!, $input: UpdateCourseUnitInput!) { updateCourseUnit(id: $id, input: $input) { id scope scopeId offeringId } }`;
const GROUP = `mutation($input: CreateCourseAssetGroupInput!) { createCourseAssetGroup(input: $input) { id title scope scopeId unitId } }`;
const ASSET = `mutation($input: CreateCourseAssetInput!) { createCourseAsset(input: $input) { id title type state scope scopeId } }`;
const READ_ASSET = `query($id: ID!) { courseAsset(id: $id) { id title } }`;
const READ_UNIT = `query($id: ID!) { courseUnit(id: $id) { id title } }`;

/** A course (closed unless `open`) with `manager` as its manager, added through GraphQL by the administrator. */
async function course(open = false) {
  const id = await testing.create(server, admin.token, open ? { state: 1 } : { state: 0 });
  const added = await gql(ADD_MANAGER, { course: id, user: manager.username }, admin.token);
  expect(added.errors, JSON.stringify(added.errors)).toBeUndefined();
  return id;
}

const eventsOf = async (area: string, recordId: number) =>
  (await sql().query<{ type: string; subject_id: number | null }>(Prisma.sql`SELECT type, subject_id FROM outbox WHERE area = ${area} AND record_id = ${recordId} ORDER BY id`)).map((row: { type: string }) => row.type);

describe("a course's people", () => {
  it("its managers and administrators enrol learners in an offering of the course (and a section of it), add managers and take people off; others are refused", async () => {
    const id = await course();
    const offering = (await gql(OFFERING, { input: { scopeId: id, alias: "fall", title: "Fall" } }, manager.token)).data.createCourseOffering;
    const section = (await gql(SECTION, { input: { offeringId: Number(offering.id), alias: "a", title: "Section A" } }, manager.token)).data.createCourseSection;
    expect(section).toMatchObject({ scope: "course", scopeId: id });

    // A bystander may not know the closed course (404); a learner may, and is not its manager (403).
    expect(code(await gql(ENROL, { course: id, user: bystander.username, offering: offering.id }, bystander.token))).toBe("NOT_FOUND");
    const enrolled = await gql(ENROL, { course: id, user: learner.username, offering: offering.id, section: section.id }, manager.token);
    expect(enrolled.errors, JSON.stringify(enrolled.errors)).toBeUndefined();
    expect(code(await gql(ENROL, { course: id, user: bystander.username, offering: offering.id }, learner.token))).toBe("FORBIDDEN");
    expect(await server.app.db.prisma.courseMember.findUnique({ where: { courseId_userId: { courseId: id, userId: learner.id } } })).toMatchObject({ role: "learner", offeringId: Number(offering.id), sectionId: Number(section.id) });

    // An offering of another course, a section of another offering, an unknown person: each named.
    const other = await course();
    const elsewhere = (await gql(OFFERING, { input: { scopeId: other, alias: "spring", title: "Spring" } }, manager.token)).data.createCourseOffering;
    expect(parameters(await gql(ENROL, { course: id, user: bystander.username, offering: elsewhere.id }, manager.token))).toEqual(["offering"]);
    const otherSection = (await gql(SECTION, { input: { offeringId: Number(elsewhere.id), alias: "b", title: "B" } }, manager.token)).data.createCourseSection;
    expect(parameters(await gql(ENROL, { course: id, user: bystander.username, offering: offering.id, section: otherSection.id }, manager.token))).toEqual(["section"]);
    expect(parameters(await gql(ENROL, { course: id, user: "nobody-at-all@example.test", offering: offering.id }, manager.token))).toEqual(["user"]);

    expect((await gql(REMOVE, { course: id, user: learner.username }, manager.token)).errors).toBeUndefined();
    expect(parameters(await gql(REMOVE, { course: id, user: learner.username }, manager.token))).toEqual(["user"]);
    expect(await eventsOf("courses", id)).toEqual(expect.arrayContaining(["courses.managerAdded", "courses.learnerEnrolled", "courses.memberRemoved"]));
    const [enrolment] = await sql().query<{ subject_id: number }>(Prisma.sql`SELECT subject_id FROM outbox WHERE type = 'courses.learnerEnrolled' AND record_id = ${id}`);
    expect(enrolment!.subject_id).toBe(learner.id);
  });
});

describe("a course's outline", () => {
  it("is written by the course's managers and administrators only: a learner gets 403, a bystander of a closed course 404 (it is not there for them)", async () => {
    const id = await course();
    const offering = (await gql(OFFERING, { input: { scopeId: id, alias: "term", title: "Term" } }, manager.token)).data.createCourseOffering;
    expect(offering).toMatchObject({ scope: "course", scopeId: id });
    await gql(ENROL, { course: id, user: learner.username, offering: offering.id }, manager.token);

    expect(code(await gql(UNIT, { input: { offeringId: Number(offering.id) } }, learner.token))).toBe("FORBIDDEN");
    expect(code(await gql(OFFERING, { input: { scopeId: id, alias: "mine", title: "Mine" } }, learner.token))).toBe("FORBIDDEN");
    expect(code(await gql(UNIT, { input: { offeringId: Number(offering.id) } }))).toBe("UNAUTHENTICATED");

    const unit = (await gql(UNIT, { input: { offeringId: Number(offering.id) } }, manager.token)).data.createCourseUnit;
    // The default title, and the offering's course as its scope.
    expect(unit).toMatchObject({ title: "New Unit", scope: "course", scopeId: id, offeringId: Number(offering.id) });
    // The default asset groups, each made through the write path with its own event.
    const groups = await server.app.db.prisma.courseAssetGroup.findMany({ where: { unitId: Number(unit.id) }, orderBy: { ordering: "asc" } });
    expect(groups.map((group) => [group.title, group.scope, group.scopeId])).toEqual([
      ["Lectures", "course", id],
      ["Homework", "course", id],
      ["Exam", "course", id],
    ]);
    for (const group of groups) expect(await eventsOf("courseAssetGroups", group.id)).toEqual(["courseAssetGroups.assetGroupCreated"]);
    expect(await eventsOf("courseUnits", Number(unit.id))).toEqual(["courseUnits.unitCreated"]);

    // Read by its learner and manager; not there for a bystander while the course is closed.
    expect((await gql(READ_UNIT, { id: unit.id }, learner.token)).data?.courseUnit?.id).toBe(unit.id);
    expect(code(await gql(READ_UNIT, { id: unit.id }, bystander.token))).toBe("NOT_FOUND");
    // Writing into it, a bystander is told the offering does not exist, as of one that does not: nothing of the course.
    const outsider = await gql(UNIT, { input: { offeringId: Number(offering.id) } }, bystander.token);
    const nowhere = await gql(UNIT, { input: { offeringId: 2_000_000_000 } }, bystander.token);
    expect(parameters(outsider)).toEqual(["offeringId"]);
    expect(outsider.errors?.[0]?.message).toContain(`Offering ${offering.id} does not exist.`);
    expect(parameters(nowhere)).toEqual(["offeringId"]);

    const group = (await gql(GROUP, { input: { unitId: Number(unit.id), title: "Readings" } }, manager.token)).data.createCourseAssetGroup;
    expect(group).toMatchObject({ scope: "course", scopeId: id, unitId: Number(unit.id) });
    // An asset's draft: its managers see it, its learners do not until it is published.
    const asset = (await gql(ASSET, { input: { scope: "course", scopeId: id, type: "link", content: "https://example.test/notes" } }, manager.token)).data.createCourseAsset;
    expect(asset).toMatchObject({ title: "New asset", type: "link", state: 0 });
    expect(code(await gql(READ_ASSET, { id: asset.id }, learner.token))).toBe("NOT_FOUND");
    expect((await gql(READ_ASSET, { id: asset.id }, manager.token)).data?.courseAsset?.id).toBe(asset.id);
    expect(code(await gql(ASSET, { input: { scope: "course", scopeId: id, type: "link" } }, learner.token))).toBe("FORBIDDEN");
    expect(parameters(await gql(ASSET, { input: { scope: "course", scopeId: id, type: "file" } }, manager.token))).toEqual(["type"]);
  });

  it("a unit, asset group or asset in no course is the administrators' (the site's); a unit joins a course when an administrator puts it in an offering, and stays in one", async () => {
    const id = await course();
    const offering = (await gql(OFFERING, { input: { scopeId: id, alias: "run", title: "Run" } }, manager.token)).data.createCourseOffering;
    expect(code(await gql(UNIT, { input: {} }, manager.token))).toBe("FORBIDDEN");
    expect(code(await gql(GROUP, { input: {} }, manager.token))).toBe("FORBIDDEN");
    expect(code(await gql(ASSET, { input: { type: "tool" } }, manager.token))).toBe("FORBIDDEN");

    const loose = (await gql(UNIT, { input: { title: "Loose" } }, admin.token)).data.createCourseUnit;
    expect(loose).toMatchObject({ scope: "site", scopeId: 0, offeringId: null });
    // An administrator's draft: unpublished, and with no asset groups until it is in a course.
    expect(await server.app.db.prisma.courseUnit.findUnique({ where: { id: Number(loose.id) } })).toMatchObject({ state: 0 });
    expect(await server.app.db.prisma.courseAssetGroup.count({ where: { unitId: Number(loose.id) } })).toBe(0);
    // A loose unit holding a group joins no course (the group would stay behind): 409 naming offeringId.
    const holding = (await gql(UNIT, { input: { title: "Holding" } }, admin.token)).data.createCourseUnit;
    await gql(GROUP, { input: { unitId: Number(holding.id) } }, admin.token);
    expect(code(await gql(UPDATE_UNIT, { id: holding.id, input: { offeringId: Number(offering.id) } }, admin.token))).toBe("CONFLICT");
    expect((await gql(GROUP, { input: {} }, admin.token)).data.createCourseAssetGroup).toMatchObject({ title: "New asset group", scope: "site", scopeId: 0 });

    // Not the manager's to move: an administrator's draft is not there for them (404); published, it is the site's (403).
    expect(code(await gql(UPDATE_UNIT, { id: loose.id, input: { offeringId: Number(offering.id) } }, manager.token))).toBe("NOT_FOUND");
    await gql(UPDATE_UNIT, { id: loose.id, input: { state: 1 } }, admin.token);
    expect(code(await gql(UPDATE_UNIT, { id: loose.id, input: { offeringId: Number(offering.id) } }, manager.token))).toBe("FORBIDDEN");
    expect(parameters(await gql(UPDATE_UNIT, { id: loose.id, input: { offeringId: 2_000_000_000 } }, admin.token))).toEqual(["offeringId"]);
    const joined = await gql(UPDATE_UNIT, { id: loose.id, input: { offeringId: Number(offering.id) } }, admin.token);
    expect(joined.errors, JSON.stringify(joined.errors)).toBeUndefined();
    expect(joined.data.updateCourseUnit).toMatchObject({ scope: "course", scopeId: id, offeringId: Number(offering.id) });
    // Now the course's: its manager changes it; it never goes back to no offering.
    expect((await gql(UPDATE_UNIT, { id: loose.id, input: { title: "Week 1" } }, manager.token)).errors).toBeUndefined();
    expect(parameters(await gql(UPDATE_UNIT, { id: loose.id, input: { offeringId: null } }, admin.token))).toEqual(["offeringId"]);
  });

  it("a unit's section and an asset group's parent are records of its own course (400 naming the field otherwise, as for one that does not exist)", async () => {
    const mine = await course();
    const theirs = await course();
    const offering = (await gql(OFFERING, { input: { scopeId: mine, alias: "own", title: "Own" } }, manager.token)).data.createCourseOffering;
    const foreignOffering = (await gql(OFFERING, { input: { scopeId: theirs, alias: "other", title: "Other" } }, admin.token)).data.createCourseOffering;
    const foreignSection = (await gql(SECTION, { input: { offeringId: Number(foreignOffering.id), alias: "x", title: "X" } }, admin.token)).data.createCourseSection;
    expect(parameters(await gql(UNIT, { input: { offeringId: Number(offering.id), sectionId: Number(foreignSection.id) } }, manager.token))).toEqual(["sectionId"]);
    const unit = (await gql(UNIT, { input: { offeringId: Number(offering.id) } }, manager.token)).data.createCourseUnit;
    expect(parameters(await gql(UPDATE_UNIT, { id: unit.id, input: { sectionId: Number(foreignSection.id) } }, manager.token))).toEqual(["sectionId"]);
    const foreignUnit = (await gql(UNIT, { input: { offeringId: Number(foreignOffering.id) } }, admin.token)).data.createCourseUnit;
    const [foreignGroup] = await server.app.db.prisma.courseAssetGroup.findMany({ where: { unitId: Number(foreignUnit.id) } });
    expect(parameters(await gql(GROUP, { input: { unitId: Number(unit.id), parentId: foreignGroup!.id } }, manager.token))).toEqual(["parentId"]);
    const [ownGroup] = await server.app.db.prisma.courseAssetGroup.findMany({ where: { unitId: Number(unit.id) } });
    const nested = await gql(GROUP, { input: { unitId: Number(unit.id), parentId: ownGroup!.id, title: "Nested" } }, manager.token);
    expect(nested.errors, JSON.stringify(nested.errors)).toBeUndefined();
  });

  it("deleting an offering takes its units and their asset groups, each with its event; deleting the course takes everything in it", async () => {
    const id = await course();
    const offering = (await gql(OFFERING, { input: { scopeId: id, alias: "gone", title: "Gone" } }, manager.token)).data.createCourseOffering;
    const unit = (await gql(UNIT, { input: { offeringId: Number(offering.id) } }, manager.token)).data.createCourseUnit;
    const nested = (await gql(GROUP, { input: { unitId: Number(unit.id), title: "Inner" } }, manager.token)).data.createCourseAssetGroup;
    const groups = await server.app.db.prisma.courseAssetGroup.findMany({ where: { unitId: Number(unit.id) } });
    await server.app.db.prisma.courseAssetGroup.update({ where: { id: Number(nested.id) }, data: { parentId: groups[0]!.id } });
    const asset = (await gql(ASSET, { input: { scope: "course", scopeId: id, type: "wiki", content: "Some page" } }, manager.token)).data.createCourseAsset;
    await sql().query(Prisma.sql`INSERT INTO course_asset_associations (asset_id, container, container_id) VALUES (${Number(asset.id)}, 'asset_group', ${Number(nested.id)})`);

    const removed = await gql(`mutation($id: ID!) { deleteCourseOffering(id: $id) }`, { id: offering.id }, manager.token);
    expect(removed.errors, JSON.stringify(removed.errors)).toBeUndefined();
    expect(await server.app.db.prisma.courseUnit.count({ where: { id: Number(unit.id) } })).toBe(0);
    expect(await eventsOf("courseUnits", Number(unit.id))).toEqual(["courseUnits.unitCreated", "courseUnits.unitDeleted"]);
    for (const group of groups) expect(await eventsOf("courseAssetGroups", group.id)).toEqual(["courseAssetGroups.assetGroupCreated", "courseAssetGroups.assetGroupDeleted"]);
    // The asset stays in its course, out of the group that went.
    expect(await server.app.db.prisma.courseAssetAssociation.count({ where: { assetId: Number(asset.id) } })).toBe(0);
    expect(await server.app.db.prisma.courseAsset.count({ where: { id: Number(asset.id) } })).toBe(1);

    expect((await gql(`mutation($id: ID!) { deleteCourse(id: $id) }`, { id }, admin.token)).errors).toBeUndefined();
    expect(await server.app.db.prisma.courseAsset.count({ where: { id: Number(asset.id) } })).toBe(0);
    expect(await eventsOf("courseAssets", Number(asset.id))).toEqual(["courseAssets.assetCreated", "courseAssets.assetDeleted"]);
  });
});

describe("POST /api/courses/asset/handlers", () => {
  it("answers the handlers that take the file name's extension, most specific first, and the upload limit in megabytes, to anyone", async () => {
    const pdf = await server.rest("POST", "/courses/asset/handlers", { body: { name: "Week 1 Notes.PDF" } });
    expect(pdf.status).toBe(200);
    expect(pdf.body).toEqual({
      ext: "pdf",
      handlers: [
        { name: "pdf", description: expect.any(String), extensions: ["pdf"] },
        { name: "download", description: expect.any(String), extensions: [] },
      ],
      max_upload: 100,
    });
    const none = await server.rest("POST", "/courses/asset/handlers", { body: { name: "README" } });
    expect(none.body).toMatchObject({ ext: "", handlers: [{ name: "download" }] });
    // A path is not a name: only its last part counts.
    expect((await server.rest("POST", "/courses/asset/handlers", { body: { name: "../../etc/passwd.mp4" } })).body.ext).toBe("mp4");
    const missing = await server.rest("POST", "/courses/asset/handlers", { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((error: { parameter: string }) => error.parameter)).toEqual(["name"]);
  });
});

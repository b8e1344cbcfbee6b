import { describe, expect, it } from "vitest";
import "../src/areas.js";
import { defineArea } from "../src/common/area.js";
import type { AreaDeclaration } from "../src/common/area-declaration.js";
import { USER_RECORDS } from "../src/users/service.js";
import "../src/scope-kinds.js";
import { checkRecordsDeclaration, declaredRecords, ownKindOf } from "../src/common/records.js";

/**
 * defineArea refuses, when the area is declared, the parts its REST rows or GraphQL fields would ask for and
 * the declaration does not give (src/common/area.ts), rather than answering the first request with a 500.
 */
describe("an area that leaves parts out", () => {
  // Accounts' own records declaration: no counters, nothing registered again.
  const base = {
    area: "declaration-check",
    model: "User",
    plural: "declarationChecks",
    label: "Check",
    description: "A declaration the kit must refuse.",
    policy: USER_RECORDS,
    fields: {},
    shown: { id: true, username: true, name: true, created: true },
    hidden: ["usernameKey", "email", "emailKey", "passwordHash", "isAdmin"],
    writes: { by: "administrators", forbidden: "No.", names: [] },
    own: { create: async () => null },
  } satisfies Partial<AreaDeclaration>;
  const refused = (declaration: object) => () => defineArea(declaration as AreaDeclaration);

  it("makes records without events only through its own create", () => {
    const { own: _own, ...withoutCreate } = base;
    expect(refused(withoutCreate)).toThrow(/without events makes its records with own.create/);
  });
  it("has no REST list without a list, nor a REST read without a read", () => {
    expect(refused({ ...base, rest: { versions: ["1.0"], list: { path: "/checks/list", task: "list", key: "checks" } } })).toThrow(/rest.list without a list/);
    expect(refused({ ...base, rest: { versions: ["1.0"], read: { path: "/checks/{id}", task: "read" } } })).toThrow(/rest.read without a read/);
  });
  it("has no own update or delete without events, and opens its create to anonymous callers only through its own create", () => {
    expect(refused({ ...base, own: { create: async () => null, update: async () => null } })).toThrow(/own.update or own.remove without events/);
    const { own: _own, ...withoutCreate } = base;
    expect(refused({ ...withoutCreate, events: { checkCreated: "c", checkUpdated: "u", checkDeleted: "d" }, writes: { ...base.writes, remove: "r", openedBy: () => true } })).toThrow(
      /writes.openedBy without own.create/,
    );
  });
});

/** The records declarations' policy parts the kit interprets (src/common/records.ts) are refused when they cannot hold. */
describe("a records declaration", () => {
  it("that is a scope names a registered kind (every declaration the application makes)", () => {
    const scopes = declaredRecords().filter((records) => records.isScope);
    expect(scopes.map((records) => records.model)).toContain("Group");
    for (const records of scopes) expect(ownKindOf(records)?.name).toBe(records.isScope);
    expect(() => ownKindOf({ ...scopes[0]!, isScope: "nowhere" })).toThrow(/no module registered/);
  });
  it("refuses private fields, parents and scopes it could not serve", () => {
    const plain = { model: "ForumPost", scoped: true, published: { field: "state", value: 1 }, creator: "createdById" } as const;
    expect(() => checkRecordsDeclaration({ ...plain, privateFields: { fields: ["title"], shownTo: "self" } })).toThrow(/an account's/);
    expect(() => checkRecordsDeclaration({ ...plain, privateFields: { fields: ["title"], shownTo: "members" } })).toThrow(/need isScope/);
    expect(() => checkRecordsDeclaration({ ...plain, parent: { field: "threadId", root: { field: "starter", value: 0.5 } } })).toThrow(/must be an integer/);
    const { creator: _creator, ...uncreated } = plain;
    expect(() => checkRecordsDeclaration({ ...uncreated, parent: { field: "threadId", root: { field: "starter", value: 1 } } })).toThrow(/there is no creator/);
    expect(() => checkRecordsDeclaration({ ...plain, isScope: "group" })).toThrow(/isScope is for unscoped records/);
  });
});

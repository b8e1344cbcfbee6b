import { silentLogger } from "../src/observability/logger.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../src/generated/prisma/client.js";
import { loadConfig } from "../src/config.js";
import { createApp, type App } from "../src/app.js";
import { restName } from "../src/common/fields.js";
import { accessFieldOf, checkRecordsDeclaration, type RecordsDeclaration } from "../src/common/records.js";
import { modelInfo, table } from "../src/common/model.js";
import { visibleSql } from "../src/common/visibility.js";
import { listStatements } from "../src/common/paging.js";
import type { Caller, ListSpec } from "../src/common/list-spec.js";
import { sqlClientOf, utcTimestampText } from "../src/db/sql.js";
import { schema } from "../src/graphql/schema.js";
import { createScratchDatabase } from "./scratch-database.js";
import { contractAreas, graphqlList, graphqlScope, listedRecords, listedTotal, listRequest, listTakes, usersCreate, type ListContract, type Where } from "./areas.js";
import { oneServerForFile, type Cast, type RestResult, type TestServer } from "./server.js";
import { describeOnPostgres } from "./postgres-only.js";

/**
 * Totals stay exact (issue 6): list totals come from counts the database keeps in the writing transaction
 * (list_counts), so a list straight after any create, update (state, access, scope), delete or failed write
 * shows the exact total, for every caller — also when another server process wrote, and for the blog's
 * publishing window, whose records appear and disappear with time alone. "Exact" is checked two ways: the
 * total equals the records the same list shows (read from the rows, not the counts), and list_counts equals
 * a recount of the table.
 */
const areas = contractAreas("totals");

type Viewer = "anonymous" | "alice" | "bob" | "member" | "manager" | "admin";

/** Who writes an area's records in these tests, as a viewer: alice (any user), the cast's group manager (managers only), or the administrator. */
const writerOf = (contract: ListContract): Viewer => (usersCreate(contract) ? "alice" : contract.writers === "managers" ? "manager" : "admin");

/**
 * Every viewer's list of one scope: total and records shown agree (fewer than a page, so all are shown).
 * A search goes through the GraphQL list where the REST row takes none (a group plugin's twin).
 */
async function expectExactTotals(server: TestServer, cast: Cast, contract: ListContract, where: Where, step: string) {
  const tokens: Record<Viewer, string | undefined> = {
    anonymous: undefined,
    alice: cast.alice.token,
    bob: cast.bob.token,
    member: cast.member.token,
    manager: cast.manager.token,
    admin: cast.admin.token,
  };
  const totals: Partial<Record<Viewer, number>> = {};
  const { search, ...scope } = where;
  for (const [viewer, token] of Object.entries(tokens) as [Viewer, string | undefined][]) {
    let shown: number;
    let total: number;
    if (search !== undefined && !listTakes(contract, "search")) {
      const answer = await graphqlList(server, contract, scope, { search, limit: 0 }, token);
      expect(answer.errors, `${step}, ${viewer}: ${JSON.stringify(answer.errors)}`).toBeUndefined();
      [shown, total] = [answer.ids.length, answer.total];
    } else {
      const request = listRequest(contract, where);
      const response: RestResult = await server.rest(request.method, request.path, { query: { ...request.query, limit: 0 }, token });
      expect(response.status, `${step}, ${viewer}: ${JSON.stringify(response.body)}`).toBe(200);
      [shown, total] = [listedRecords(contract, response.body).length, listedTotal(contract, response)];
    }
    expect(shown, `${step}, ${viewer}: more records than one page holds`).toBeLessThan(100);
    expect(total, `${step}, ${viewer}`).toBe(shown);
    totals[viewer] = shown;
  }
  return totals;
}

/**
 * The totals the counts give at other moments than now — time passing, or the server's clock ahead of or
 * behind the database's by hours — for every viewer of one scope: each equals the records the visibility
 * rule shows at that moment (a count of the rows). Read through the list kit's statements, as the plan test
 * does, since a request cannot move the server's clock.
 */
async function expectExactTotalsAt(app: App, cast: Cast, spec: ListSpec, where: { scope: string; scopeId: number }, moments: Date[], step: string) {
  const db = app.db.prisma;
  const records = spec.records;
  const info = modelInfo(db, records.model);
  const col = (field: string) => Prisma.raw(`t."${info.fields.get(field)!.column}"`);
  const users = { anonymous: undefined, alice: cast.alice, bob: cast.bob, member: cast.member, manager: cast.manager, admin: cast.admin };
  for (const moment of moments) {
    for (const [name, user] of Object.entries(users)) {
      const caller: Caller = {
        db,
        viewer: user ? { user: { id: user.id, username: user.username, isAdmin: name === "admin" }, via: "token" } : { user: null, via: "anonymous" },
      };
      const { total } = listStatements(spec, caller, { ...where, limit: 0 }, undefined, {}, moment);
      const [row] = await sqlClientOf(db).query<{ counted: number; shown: number }>(
        Prisma.sql`SELECT (${total}) AS counted, (SELECT count(*)::int FROM ${table(info, "t")} WHERE ${col("scope")} = ${where.scope} AND ${col("scopeId")} = ${
          where.scopeId
        } AND ${visibleSql(db, records, caller.viewer, "t", moment)}) AS shown`,
      );
      expect(row!.counted, `${step}, ${name} at ${moment.toISOString()}`).toBe(row!.shown);
    }
  }
}

/**
 * list_counts for one table, and the same counts worked out from the table's rows; for windowed records
 * also list_count_days (the days the triggers keep: from yesterday, UTC, on) and its recount.
 */
async function countsAndRecount(app: App, records: RecordsDeclaration) {
  const db = app.db.prisma;
  const info = modelInfo(db, records.model);
  const col = (field: string) => Prisma.raw(`"${info.fields.get(field)!.column}"`);
  const key = Prisma.sql`${records.scoped ? col("scope") : Prisma.sql`''`} AS scope, ${records.scoped ? col("scopeId") : Prisma.sql`0`} AS scope_id,
    ${col(records.published.field)} = ${records.published.value} AS published, ${records.access ? col(accessFieldOf(records)) : Prisma.sql`0`} AS access,
    ${records.window ? Prisma.sql`${col(records.window.down)} IS NOT NULL` : Prisma.sql`false`} AS ends`;
  const byCreator = records.creator ? Prisma.sql`UNION ALL SELECT ${key}, ${col(records.creator)} AS created_by FROM ${Prisma.raw(`"${info.table}"`)}` : Prisma.empty;
  const recount = await sqlClientOf(db).query(
    Prisma.sql`SELECT scope, scope_id, created_by, published, access, ends, count(*)::int AS rows
                 FROM (SELECT ${key}, 0 AS created_by FROM ${Prisma.raw(`"${info.table}"`)} ${byCreator}) keyed
                GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
  );
  const kept = await sqlClientOf(db).query(
    // Each key is kept in one row per writer shard: what a total reads is their sum.
    Prisma.sql`SELECT scope, scope_id, created_by, published, access, ends, sum(rows)::int AS rows FROM list_counts
                WHERE table_name = ${info.table} GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(rows) <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
  );
  if (!records.window) return { kept, recount };
  // Published rows by the day their window opens and, with an end, closes; empty windows (down <= up) on neither.
  const [up, down] = [col(records.window.up), col(records.window.down)];
  const published = Prisma.sql`SELECT ${records.scoped ? col("scope") : Prisma.sql`''`} AS scope, ${records.scoped ? col("scopeId") : Prisma.sql`0`} AS scope_id,
    ${records.access ? col(accessFieldOf(records)) : Prisma.sql`0`} AS access, ${records.creator ? col(records.creator) : Prisma.sql`NULL::int`} AS creator, ${up} AS up, ${down} AS down
    FROM ${Prisma.raw(`"${info.table}"`)} WHERE ${col(records.published.field)} = ${records.published.value}`;
  const yesterday = Prisma.sql`(now() AT TIME ZONE 'UTC')::date - 1`;
  const recountDays = await sqlClientOf(db).query(
    Prisma.sql`WITH published AS (${published}),
                    edges AS (SELECT scope, scope_id, access, creator, up::date AS day, 'up' AS edge FROM published WHERE down IS NULL OR down > up
                              UNION ALL SELECT scope, scope_id, access, creator, down::date, 'down' FROM published WHERE down > up)
               SELECT scope, scope_id, who AS created_by, day::text AS day, edge, access, count(*)::int AS rows
                 FROM edges CROSS JOIN LATERAL (VALUES (0), (creator)) AS w(who)
                WHERE who IS NOT NULL AND day >= ${yesterday}
                GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
  );
  const keptDays = await sqlClientOf(db).query(
    Prisma.sql`SELECT scope, scope_id, created_by, day::text AS day, edge, access, sum(rows)::int AS rows FROM list_count_days
                WHERE table_name = ${info.table} AND day >= ${yesterday} GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(rows) <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
  );
  return { kept: [...kept, ...keptDays], recount: [...recount, ...recountDays] };
}

const graphqlName = (model: string) => model[0]!.toLowerCase() + model.slice(1);

describe("records declarations the counts cannot total", () => {
  it("records that are scopes (isScope) with a publishing window are refused when declared (the private per-user counts would be added to the windowed ones twice)", () => {
    const declared = { model: "Group", scoped: false, published: { field: "published", value: 1 }, isScope: "group" } as const;
    expect(() => checkRecordsDeclaration(declared)).not.toThrow();
    expect(() => checkRecordsDeclaration({ ...declared, window: { up: "created", down: "modified" } })).toThrow(/Group: isScope and window together .*count/);
  });
});

/**
 * One server for every area of this file: each area writes to a table, or scopes and a group, of its own
 * (its cast's group, its own users), so they share a database; a server's start is ≈0.9 s of CPU.
 */
const serverForAreas = oneServerForFile();

for (const testing of areas) {
  const { contract } = testing;
  const records = contract.spec.records;
  const model = records.model;

  describe(`${testing.area}: exact totals after every kind of write`, () => {
    let server: TestServer;
    let cast: Cast;

    beforeAll(async () => {
      server = await serverForAreas();
      cast = await server.cast(`totals-${testing.area}`);
    });

    /**
     * A list whose path names its scope (a group plugin's): the records stay in the scope they were made in
     * (no scope moves), each written through its twins, which take the scope as an argument.
     */
    const fromPath = contract.list.scopeFromPath;
    /** The viewer who writes the records, and their token. */
    const creator = writerOf(contract);
    const writerToken = () => ({ alice: cast.alice.token, manager: cast.manager.token, admin: cast.admin.token })[creator as "alice" | "manager" | "admin"];
    /** Where each record was made (its path scope), for the twins. */
    const placed = new Map<number, Where>();
    const create = async (token: string, values: Record<string, unknown>): Promise<number> => {
      const id = await testing.create(server, token, values);
      placed.set(id, fromPath ? { [fromPath.placeholder]: values[fromPath.placeholder] as string } : {});
      return id;
    };
    /**
     * A scope of the test's own, `{ scope, scopeId }` and as the list's Where: `project` `id`, or (a path's
     * scope) a fresh group, made by the administrator, the cast's manager its manager and member its member.
     */
    const scopeOfOwn = async (id: number) => {
      if (!fromPath) return { scope: "project", scopeId: id, where: { scope: "project", scope_id: id } as Where };
      const made = await fromPath.make(server, cast.admin.token);
      await fromPath.addMember(server, made.scopeId, cast.manager.id, true);
      await fromPath.addMember(server, made.scopeId, cast.member.id);
      return { scope: fromPath.kind, scopeId: made.scopeId, where: { [fromPath.placeholder]: made.value } as Where };
    };
    /** The cast's group as the list's Where. */
    const castGroup = (): Where => (fromPath ? { [fromPath.placeholder]: String(cast.groupId) } : { scope: "group", scope_id: cast.groupId });
    const mutations = schema.getMutationType()!.getFields();
    const updateField = fromPath ? fromPath.graphql.update! : `update${model}`;
    const removeField = fromPath ? fromPath.graphql.remove! : `delete${model}`;
    const updateInput = String(mutations[updateField]!.args.find((arg) => arg.name === "input")!.type);
    const mutate = async (field: string, declarations: string, args: string, id: number, variables: Record<string, unknown>, token: string) => {
      // Only a path's scope is an argument of the twins; the others' mutations take the id alone.
      const scope = fromPath ? graphqlScope(contract, placed.get(id)!) : { declarations: "", args: "", variables: {} };
      const response = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query: `mutation(${[scope.declarations, declarations].filter(Boolean).join(", ")}) { ${field}(${[scope.args, args].filter(Boolean).join(", ")}) ${field === updateField ? "{ id }" : ""} }`,
          variables: { ...scope.variables, id, ...variables },
        }),
      });
      return (await response.json()) as { data?: unknown; errors?: unknown[] };
    };
    const change = (id: number, input: Record<string, unknown>, token = cast.admin.token) => mutate(updateField, `$id: ID!, $input: ${updateInput}`, "id: $id, input: $input", id, { input }, token);
    const remove = async (id: number) => {
      expect((await mutate(removeField, "$id: ID!", "id: $id", id, {}, cast.admin.token)).errors).toBeUndefined();
    };
    const level = (name: "public" | "registered" | "private") => records.access?.levels.find((entry) => entry.name === name);

    it("the version triggers (search totals) were installed with the scope columns the records declaration names", async () => {
      const info = modelInfo(server.app.db.prisma, model);
      const triggers = await sqlClientOf(server.app.db.prisma).query<{ name: string; args: string }>(
        Prisma.sql`SELECT tgname AS name, encode(tgargs, 'escape') AS args FROM pg_trigger WHERE tgrelid = ${info.table}::regclass AND tgname LIKE '%list_versions%' ORDER BY 1`,
      );
      expect(triggers.map((trigger) => trigger.name)).toEqual(["delete", "insert", "truncate", "update"].map((event) => `${info.table}_list_versions_${event}`));
      const expected = records.scoped ? [info.fields.get("scope")!.column, info.fields.get("scopeId")!.column] : ["", ""];
      for (const trigger of triggers) expect(trigger.args.split("\\000").slice(0, -1), trigger.name).toEqual(expected);
    });

    // Records with an unpublished state (drafts): the writes below publish and unpublish them.
    // (A state that does not write the published field is a level's matter: a course closed by its state.)
    const hasDrafts = contract.states.some((state) => !state.published && Object.hasOwn(state.values, records.published.field));
    const accessInput = accessFieldOf(records);

    if (records.isScope && contract.privateTo) {
      const privateTo = contract.privateTo;
      // Unscoped records private to some users (hidden groups): the counters hold every level, and the
      // private records a user may see are added per user (src/common/counted-totals.ts, cached-totals.ts).
      it("shows the exact total, plain and searched, after creates, level changes, granting and revoking, and deletes", async () => {
        const searched = { search: "Quokka" };
        const steps = async (name: string) => ({ all: await expectExactTotals(server, cast, contract, {}, name), searched: await expectExactTotals(server, cast, contract, searched, `${name}, searched`) });
        const initial = await steps("before");
        const restLevel = (name: "public" | "private") => level(name)!.value;
        const shown = await create(writerToken(), { title: "A quokka, shown", [restName(accessInput)]: restLevel("public") });
        const hidden = await create(writerToken(), { title: "A quokka, hidden", [restName(accessInput)]: restLevel("private") });
        const created = await steps("after creating a public and a private record");
        for (const part of ["all", "searched"] as const) {
          expect(created[part].anonymous, part).toBe(initial[part].anonymous! + 1);
          expect(created[part].bob, part).toBe(initial[part].bob! + 1);
          expect(created[part].admin, part).toBe(initial[part].admin! + 2);
        }
        await privateTo.grant(server, hidden, cast.bob.id);
        const granted = await steps("after letting bob see the private one");
        expect(granted.all.bob).toBe(created.all.bob! + 1);
        expect(granted.searched.bob).toBe(created.searched.bob! + 1);
        expect(granted.all.anonymous).toBe(created.all.anonymous);
        expect((await change(shown, contract.levelInput?.("private") ?? { [accessInput]: level("private")!.graphqlName })).errors).toBeUndefined();
        const hiddenBoth = await steps("after making the other private too");
        expect(hiddenBoth.all.anonymous).toBe(initial.all.anonymous);
        expect(hiddenBoth.all.bob).toBe(created.all.bob);
        await privateTo.revoke(server, hidden, cast.bob.id);
        const revoked = await steps("after bob lost sight of it");
        expect(revoked.all.bob).toBe(initial.all.bob);
        expect(revoked.searched.bob).toBe(initial.searched.bob);
        await remove(hidden);
        await remove(shown);
        const removed = await steps("after deleting both");
        expect(removed.all.admin).toBe(initial.all.admin);
        const { kept, recount } = await countsAndRecount(server.app, records);
        expect(kept).toEqual(recount);
      });
    }

    if (hasDrafts) it("shows the exact total after creates, state, access and scope changes, failed writes and deletes", async () => {
      const where: Where = records.scoped ? (await scopeOfOwn(1)).where : {};
      const elsewhere: Where = records.scoped ? { scope: "project", scope_id: 2 } : {};
      const step = (name: string) => expectExactTotals(server, cast, contract, where, name);
      const initial = await step("before");

      const writer = writerToken();
      const published = await create(writer, { ...where, title: "published" });
      const draft = await create(writer, { ...where, title: "draft", [records.published.field === "state" ? "state" : "published"]: 0 });
      const created = await step("after creating a published record and a draft");
      expect(created.anonymous).toBe(initial.anonymous! + 1);
      expect(created.admin).toBe(initial.admin! + 2);

      const publish = { [records.published.field]: records.published.value };
      const unpublish = { [records.published.field]: records.published.value === 1 ? 0 : 1 };
      expect((await change(draft, publish)).errors).toBeUndefined();
      expect((await step("after publishing the draft")).anonymous).toBe(initial.anonymous! + 2);
      expect((await change(published, unpublish)).errors).toBeUndefined();
      expect((await step("after unpublishing")).anonymous).toBe(initial.anonymous! + 1);

      if (records.access) {
        expect((await change(draft, { access: level("registered")!.graphqlName })).errors).toBeUndefined();
        const registered = await step("after making a record registered-only");
        expect(registered.anonymous).toBe(initial.anonymous);
        expect(registered.bob).toBe(initial.bob! + 1);
        expect((await change(draft, { access: level("private")!.graphqlName })).errors).toBeUndefined();
        const hidden = await step("after making it private");
        expect(hidden.bob).toBe(initial.bob);
        if (records.creator) expect(hidden[creator]).toBe(initial[creator]! + 2);
      }

      // Records under a path's scope never move (the path says where they are): no scope changes.
      if (records.scoped && !fromPath) {
        expect((await change(published, { scope: elsewhere.scope, scopeId: elsewhere.scope_id })).errors).toBeUndefined();
        expect((await step("after moving a record to another scope")).admin).toBe(initial.admin! + 1);
        expect((await expectExactTotals(server, cast, contract, elsewhere, "the other scope")).admin).toBe(1);
        if (records.access) {
          // Private in a group: its members see it, others do not.
          const group = { scope: "group", scope_id: cast.groupId };
          const before = await expectExactTotals(server, cast, contract, group, "the group, before");
          expect((await change(published, { scope: "group", scopeId: cast.groupId, access: level("private")!.graphqlName, ...publish })).errors).toBeUndefined();
          const after = await expectExactTotals(server, cast, contract, group, "the group, after");
          expect(after.member).toBe(before.member! + 1);
          expect(after.bob).toBe(before.bob);
          // Public in a hidden group: its members' (and administrators', and its creator's), nobody else's — hiding
          // and showing the group writes nothing to the listed table; visible again, everyone's.
          expect((await change(published, { access: level("public")!.graphqlName })).errors).toBeUndefined();
          await server.app.db.prisma.group.update({ where: { id: cast.groupId }, data: { discoverability: 1 } });
          const hidden = await expectExactTotals(server, cast, contract, group, "the group, hidden");
          expect(hidden.anonymous).toBe(0);
          expect(hidden.member).toBe(after.member);
          expect(hidden.admin).toBe(after.admin);
          await server.app.db.prisma.group.update({ where: { id: cast.groupId }, data: { discoverability: 0 } });
          const visible = await expectExactTotals(server, cast, contract, group, "the group, visible again");
          expect(visible.anonymous).toBe(before.anonymous! + 1);
          expect((await change(published, { access: level("private")!.graphqlName })).errors).toBeUndefined();
          expect(await expectExactTotals(server, cast, contract, group, "the group, private again")).toEqual(after);
        }
      }

      // A write that fails inside the database leaves the totals as they were.
      const before = await step("before a failed write");
      const unique = modelInfo(server.app.db.prisma, model);
      // Areas whose records have a name unique in their scope: taking a taken one fails in the database.
      const name = ["pagename", "alias"].find((field) => unique.fields.has(field));
      if (name) {
        await create(writer, { ...where, title: "named", [name]: "taken-name" });
        await expect(create(writer, { ...where, title: "named again", [name]: "taken-name" })).rejects.toThrow(/409|not available/);
        expect((await step("after a write refused for a taken name")).admin).toBe(before.admin! + 1);
      }
      await expect(
        server.app.db.prisma.$transaction(async (tx) => {
          await tx.$executeRaw(Prisma.sql`UPDATE ${Prisma.raw(`"${unique.table}"`)} SET ${Prisma.raw(`"${unique.fields.get(records.published.field)!.column}"`)} = ${
            records.published.value === 1 ? 0 : 1
          }`);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      await step("after a transaction that unpublished everything and rolled back");

      await remove(draft);
      const removed = await step("after deleting");
      expect(removed.admin).toBe((name ? before.admin! + 1 : before.admin!) - 1);

      const { kept, recount } = await countsAndRecount(server.app, records);
      expect(kept).toEqual(recount);
    });

    if (contract.spec.search && hasDrafts) {
      // Search totals are counted once and reused while the table's version for the scope is unchanged
      // (src/common/cached-totals.ts): every kind of write must make the next search count again.
      it("shows the exact search total after writes to matching and other records, changes of the searched text, membership, failed writes and deletes", async () => {
        const scoped: Where = records.scoped ? (await scopeOfOwn(11)).where : {};
        const where = { ...scoped, search: "Zyzzyva" };
        const step = (name: string) => expectExactTotals(server, cast, contract, where, name);
        const initial = await step("before");
        expect(await step("the same search again")).toEqual(initial);

        const writer = writerToken();
        const unpublished = { [records.published.field === "state" ? "state" : "published"]: 0 };
        const matching = await create(writer, { ...scoped, title: "A zyzzyva here" });
        const draft = await create(writer, { ...scoped, title: "ZYZZYVA draft", ...unpublished });
        const other = await create(writer, { ...scoped, title: "Something else" });
        const created = await step("after creating two matching records (one a draft) and another");
        expect(created.anonymous).toBe(initial.anonymous! + 1);
        expect(created.admin).toBe(initial.admin! + 2);
        if (records.creator) expect(created[creator]).toBe(initial[creator]! + 2);
        expect(await step("the same search again")).toEqual(created);

        expect((await change(other, { title: "Now a zyzzyva too" })).errors).toBeUndefined();
        expect((await step("after a title change that matches")).anonymous).toBe(initial.anonymous! + 2);
        expect((await change(matching, { title: "No longer" })).errors).toBeUndefined();
        expect((await step("after a title change that no longer matches")).anonymous).toBe(initial.anonymous! + 1);
        if (contract.searchAlso) {
          // The wiki's text is a new revision; search_text follows it in the database.
          expect((await change(matching, { [contract.searchAlso]: "A text that mentions zyzzyva once." })).errors).toBeUndefined();
          expect((await step(`after ${contract.searchAlso} came to match`)).anonymous).toBe(initial.anonymous! + 2);
          expect((await change(matching, { [contract.searchAlso]: "A text about nothing in particular." })).errors).toBeUndefined();
          expect((await step(`after ${contract.searchAlso} no longer matches`)).anonymous).toBe(initial.anonymous! + 1);
        }
        expect((await change(matching, { title: "A zyzzyva again" })).errors).toBeUndefined();

        const publish = { [records.published.field]: records.published.value };
        expect((await change(draft, publish)).errors).toBeUndefined();
        expect((await step("after publishing the draft")).anonymous).toBe(initial.anonymous! + 3);

        if (records.access) {
          expect((await change(draft, { access: level("registered")!.graphqlName })).errors).toBeUndefined();
          const registered = await step("after making a record registered-only");
          expect(registered.anonymous).toBe(initial.anonymous! + 2);
          expect(registered.bob).toBe(initial.bob! + 3);
          expect((await change(draft, { access: level("private")!.graphqlName })).errors).toBeUndefined();
          const hidden = await step("after making it private");
          expect(hidden.bob).toBe(initial.bob! + 2);
          if (records.creator) expect(hidden[creator]).toBe(initial[creator]! + 3);
        }

        // Records under a path's scope never move: no scope changes.
        if (records.scoped && !fromPath) {
          const elsewhere = { scope: "project", scope_id: 12, search: "zyzzyva" };
          const there = await expectExactTotals(server, cast, contract, elsewhere, "another scope, before");
          expect((await change(other, { scope: elsewhere.scope, scopeId: elsewhere.scope_id })).errors).toBeUndefined();
          expect((await step("after moving a record to another scope")).admin).toBe(initial.admin! + 2);
          expect((await expectExactTotals(server, cast, contract, elsewhere, "the other scope, after")).admin).toBe(there.admin! + 1);
          if (records.access) {
            // Private in a group: its members see it in the search, others do not; joining the group shows it
            // with no write to the listed table.
            const group = { scope: "group", scope_id: cast.groupId, search: "zyzzyva" };
            const before = await expectExactTotals(server, cast, contract, group, "the group, before");
            expect((await change(other, { scope: "group", scopeId: cast.groupId, access: level("private")!.graphqlName, ...publish })).errors).toBeUndefined();
            const after = await expectExactTotals(server, cast, contract, group, "the group, after");
            expect(after.member).toBe(before.member! + 1);
            expect(after.bob).toBe(before.bob);
            // Public in a hidden group: its members' (and administrators', and its creator's), nobody else's — hiding
            // and showing the group writes nothing to the listed table; visible again, everyone's.
            expect((await change(other, { access: level("public")!.graphqlName })).errors).toBeUndefined();
            await server.app.db.prisma.group.update({ where: { id: cast.groupId }, data: { discoverability: 1 } });
            const hidden = await expectExactTotals(server, cast, contract, group, "the group's search, hidden");
            expect(hidden.anonymous).toBe(0);
            expect(hidden.member).toBe(after.member);
            expect(hidden.admin).toBe(after.admin);
            await server.app.db.prisma.group.update({ where: { id: cast.groupId }, data: { discoverability: 0 } });
            const visible = await expectExactTotals(server, cast, contract, group, "the group's search, visible again");
            expect(visible.anonymous).toBe(before.anonymous! + 1);
            expect((await change(other, { access: level("private")!.graphqlName })).errors).toBeUndefined();
            expect(await expectExactTotals(server, cast, contract, group, "the group's search, private again")).toEqual(after);
            await server.app.db.prisma.groupMember.create({ data: { groupId: cast.groupId, userId: cast.bob.id, status: "member" } });
            const joined = await expectExactTotals(server, cast, contract, group, "the group, after bob joined it");
            expect(joined.bob).toBe(after.member);
            await server.app.db.prisma.groupMember.deleteMany({ where: { groupId: cast.groupId, userId: cast.bob.id } });
            expect((await expectExactTotals(server, cast, contract, group, "the group, after bob left it")).bob).toBe(after.bob);
          }
        }

        // Writes that fail inside the database leave the totals as they were.
        const before = await step("before failed writes");
        const unique = modelInfo(server.app.db.prisma, model);
        await expect(
          server.app.db.prisma.$transaction(async (tx) => {
            await tx.$executeRaw(Prisma.sql`UPDATE ${Prisma.raw(`"${unique.table}"`)} SET title = 'zyzzyva everywhere'`);
            throw new Error("rolled back");
          }),
        ).rejects.toThrow("rolled back");
        expect(await step("after a transaction that made every title match and rolled back")).toEqual(before);
        const name = ["pagename", "alias"].find((field) => unique.fields.has(field));
        if (name) {
          await create(writer, { ...scoped, title: "Zyzzyva named", [name]: "taken-search-name" });
          await expect(create(writer, { ...scoped, title: "Zyzzyva named again", [name]: "taken-search-name" })).rejects.toThrow(/409|not available/);
          expect((await step("after a write refused for a taken name")).admin).toBe(before.admin! + 1);
        }

        await remove(matching);
        const removed = await step("after deleting a matching record");
        expect(removed.admin).toBe(before.admin! + (name ? 1 : 0) - 1);
        expect(removed.anonymous).toBe(before.anonymous! + (name ? 1 : 0) - 1);
      });
    }

    if (records.window) {
      const window = records.window;
      it("counts records into and out of their publishing window as time passes, with no write", async () => {
        // The window's edge is a whole second (REST takes whole seconds) a few seconds ahead. The records are
        // looked at before it and after it; a machine so busy that the edge came while it was still looking
        // (seen: a pass at load 4, when 2 s ahead, rounded down, left about 1 s) looks again at new records in
        // a scope of their own, with a longer lead.
        for (const [attempt, lead] of [3_000, 10_000, 30_000].entries()) {
          const { where } = await scopeOfOwn(21 + attempt);
          const rest = (moment: Date) => moment.toISOString().slice(0, 19).replace("T", " ");
          const now = Date.now();
          const soon = new Date(Math.ceil((now + lead) / 1_000) * 1_000);
          // REST names the window's fields in snake case (publish_up, publish_down).
          const [up, down] = [window.up, window.down].map((field) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
          const ago = (ms: number) => rest(new Date(now - ms));
          await create(writerToken(), { ...where, title: "opens soon 1", [up!]: rest(soon) });
          await create(writerToken(), { ...where, title: "opens soon 2", [up!]: rest(soon), [down!]: rest(new Date(now + 3_600_000)) });
          await create(writerToken(), { ...where, title: "closes soon", [up!]: ago(60_000), [down!]: rest(soon) });
          await create(writerToken(), { ...where, title: "closed", [up!]: ago(120_000), [down!]: ago(60_000) });
          await create(writerToken(), { ...where, title: "open", [up!]: ago(60_000), [down!]: rest(new Date(now + 3_600_000)) });
          const titles = async () =>
            listedRecords(contract, (await server.rest(listRequest(contract, where).method, listRequest(contract, where).path, { query: { ...listRequest(contract, where).query, limit: 0 } })).body)
              .map((item) => item.title as string)
              .sort();
          // A search's total is reused until the next window event of the records it counted.
          const searching = { ...where, search: "soon" };
          const first = await expectExactTotals(server, cast, contract, where, "before");
          const firstFound = await expectExactTotals(server, cast, contract, searching, "searching, before");
          const foundAgain = await expectExactTotals(server, cast, contract, searching, "searching again");
          const listed = await titles();
          if (Date.now() >= soon.getTime()) continue;
          expect([first.anonymous, first.bob, first[creator], first.admin]).toEqual([2, 2, 5, 5]);
          expect([firstFound.anonymous, firstFound.bob, firstFound[creator], firstFound.admin]).toEqual([1, 1, 3, 3]);
          expect(foundAgain).toEqual(firstFound);
          expect(listed).toEqual(["closes soon", "open"]);
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon.getTime() + 1_100 - Date.now())));
          const later = await expectExactTotals(server, cast, contract, where, "after the window moved");
          expect([later.anonymous, later.bob, later[creator], later.admin]).toEqual([3, 3, 5, 5]);
          const laterFound = await expectExactTotals(server, cast, contract, searching, "searching, after the window moved");
          expect([laterFound.anonymous, laterFound.bob, laterFound[creator], laterFound.admin]).toEqual([2, 2, 3, 3]);
          expect(await titles()).toEqual(["open", "opens soon 1", "opens soon 2"]);
          const { kept, recount } = await countsAndRecount(server.app, records);
          expect(kept).toEqual(recount);
          return;
        }
        throw new Error("the window's edge came each time before the records were looked at, even 30 s ahead");
      }, 120_000);

      it("counts records whose window opens or closes today, tomorrow or in a month, or is empty, after every kind of write and at any moment ahead", { timeout: 120_000 }, async () => {
        const db = server.app.db.prisma;
        const info = modelInfo(db, model);
        const scopes = [await scopeOfOwn(31), { scope: "group", scopeId: cast.groupId, where: castGroup() }];
        const [days, group] = scopes as [(typeof scopes)[number], (typeof scopes)[number]];
        const rest = utcTimestampText;
        const [up, down] = [window.up, window.down].map((field) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)) as [string, string];
        const groupBefore = await expectExactTotals(server, cast, contract, group.where, "the group, before");
        const now = Date.now();
        const HOUR = 3_600_000;
        const DAY = 24 * HOUR;
        const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
        // Later today (UTC) when the day has time left; right after midnight otherwise, which is tomorrow's case again.
        const laterToday = new Date(Math.max(now + 60_000, Math.min(now + HOUR, midnight - 1_000)));
        const tomorrow = new Date(midnight + HOUR);
        const inAMonth = new Date(now + 30 * DAY);
        const ago = new Date(now - HOUR);
        const entry = (title: string, values: Record<string, unknown>, token = writerToken(), where = days) => create(token, { ...where.where, title, ...values });
        // Private records in the group: by a member where users write, else by the writer (the group's manager).
        const groupWriter = usersCreate(contract) ? cast.member.token : writerToken();
        const ids = {
          opensToday: await entry("opens today", { [up]: rest(laterToday) }),
          opensTomorrow: await entry("opens tomorrow", { [up]: rest(tomorrow) }),
          opensInAMonth: await entry("opens in a month", { [up]: rest(inAMonth), [down]: rest(new Date(inAMonth.getTime() + DAY)) }),
          closesToday: await entry("closes today", { [up]: rest(ago), [down]: rest(laterToday) }),
          closesTomorrow: await entry("closes tomorrow", { [up]: rest(ago), [down]: rest(tomorrow) }),
          closesInAMonth: await entry("closes in a month", { [up]: rest(ago), [down]: rest(inAMonth) }),
          registeredTomorrow: await entry("registered, opens tomorrow", { [up]: rest(tomorrow), access: level("registered")!.value }),
          draftTomorrow: await entry("draft, opens tomorrow", { [up]: rest(tomorrow), state: 0 }),
          privateTomorrow: await entry("private in the group, opens tomorrow", { [up]: rest(tomorrow), access: level("private")!.value }, groupWriter, group),
          privateClosesTomorrow: await entry("private in the group, closes tomorrow", { [up]: rest(ago), [down]: rest(tomorrow), access: level("private")!.value }, groupWriter, group),
          // Made empty below: the API refuses a window whose end is not after its start, an import need not.
          emptyAhead: await entry("empty window ahead", { [up]: rest(inAMonth), [down]: rest(new Date(inAMonth.getTime() + HOUR)) }),
          emptyEqual: await entry("empty window, up = down", { [up]: rest(tomorrow), [down]: rest(new Date(tomorrow.getTime() + HOUR)) }),
          emptyStraddling: await entry("empty window around now", { [up]: rest(tomorrow), [down]: rest(new Date(tomorrow.getTime() + HOUR)) }),
          emptyToday: await entry("empty window closing today", { [up]: rest(laterToday), [down]: rest(new Date(laterToday.getTime() + HOUR)) }),
        };
        const col = (field: string) => Prisma.raw(`"${info.fields.get(field)!.column}"`);
        const setWindow = (id: number, opens: Date, closes: Date) =>
          sqlClientOf(db).query(Prisma.sql`UPDATE ${Prisma.raw(`"${info.table}"`)} SET ${col(window.up)} = ${rest(opens)}::timestamp(3), ${col(window.down)} = ${rest(
            closes,
          )}::timestamp(3) WHERE id = ${id}`);
        await setWindow(ids.emptyAhead, inAMonth, tomorrow);
        await setWindow(ids.emptyEqual, tomorrow, tomorrow);
        await setWindow(ids.emptyStraddling, tomorrow, ago);
        await setWindow(ids.emptyToday, laterToday, new Date(laterToday.getTime() - 1_000));

        // Moments ahead and behind: the server's clock 20 hours behind or ahead of the database's, each
        // opening and closing passing, the next midnights.
        const moments = [
          new Date(now - 20 * HOUR),
          new Date(now),
          new Date(laterToday.getTime() + 1),
          new Date(midnight),
          new Date(tomorrow.getTime() - 1),
          new Date(tomorrow.getTime()),
          new Date(now + 20 * HOUR),
          new Date(midnight + DAY),
          new Date(inAMonth.getTime()),
          new Date(inAMonth.getTime() + HOUR),
          new Date(inAMonth.getTime() + DAY + 1),
          new Date(now + 400 * DAY),
        ];
        const check = async (step: string) => {
          for (const where of scopes) {
            await expectExactTotals(server, cast, contract, where.where, step);
            await expectExactTotalsAt(server.app, cast, contract.spec, where, moments, step);
          }
          const { kept, recount } = await countsAndRecount(server.app, records);
          expect(kept, step).toEqual(recount);
        };
        await check("after creating");
        const first = await expectExactTotals(server, cast, contract, days.where, "now");
        // Shown now: the three closing later; their writer also sees their own others.
        expect([first.anonymous, first.bob, first[creator], first.admin]).toEqual([3, 3, 12, 12]);
        const members = await expectExactTotals(server, cast, contract, group.where, "now");
        // The group's private ones: the one open now to its members, both to their writer (a member, or the manager where managers write).
        const groupCreator: Viewer = usersCreate(contract) ? "member" : creator;
        expect([members.anonymous, members.bob, members.member, members[groupCreator], members.admin]).toEqual([
          groupBefore.anonymous,
          groupBefore.bob,
          groupBefore.member! + (groupCreator === "member" ? 2 : 1),
          groupBefore[groupCreator]! + 2,
          groupBefore.admin! + 2,
        ]);

        const update = async (id: number, input: Record<string, unknown>) => expect((await change(id, input)).errors).toBeUndefined();
        await update(ids.opensInAMonth, { [window.up]: new Date(now + 2 * DAY).toISOString() });
        await check("after moving an opening from a month ahead to the day after tomorrow");
        await update(ids.closesInAMonth, { [window.down]: tomorrow.toISOString() });
        await check("after moving a closing from a month ahead to tomorrow");
        await update(ids.closesTomorrow, { [window.down]: null });
        await check("after removing an end");
        await update(ids.opensTomorrow, { access: level("registered")!.graphqlName });
        await check("after making a scheduled record registered-only");
        await update(ids.opensToday, { state: 0 });
        await check("after unpublishing a record that opens today");
        await update(ids.draftTomorrow, { state: 1 });
        await check("after publishing a draft that opens tomorrow");
        // (Records under a path's scope stay in it: there, only made private.)
        await update(ids.registeredTomorrow, { ...(fromPath ? {} : { scope: group.scope, scopeId: group.scopeId }), access: level("private")!.graphqlName });
        await check("after moving a scheduled record into the group, private");
        await update(ids.emptyAhead, { [window.down]: new Date(inAMonth.getTime() + DAY).toISOString() });
        await check("after giving an empty window an end after its start");
        await expect(
          db.$transaction(async (tx) => {
            await tx.$executeRaw(Prisma.sql`UPDATE ${Prisma.raw(`"${info.table}"`)} SET ${col(window.up)} = ${col(window.up)} + interval '1 day', ${col(window.down)} = NULL`);
            throw new Error("rolled back");
          }),
        ).rejects.toThrow("rolled back");
        await check("after a transaction that moved every window and rolled back");
        await remove(ids.privateTomorrow);
        await remove(ids.closesToday);
        await check("after deleting");

        // A record moved to open 2 s from now appears when the moment passes, with no write.
        const soon = new Date(Date.now() + 2_000);
        await update(ids.opensTomorrow, { [window.up]: soon.toISOString(), access: level("public")!.graphqlName });
        const before = await expectExactTotals(server, cast, contract, days.where, "before the moment");
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon.getTime() + 1_100 - Date.now())));
        const after = await expectExactTotals(server, cast, contract, days.where, "after the moment");
        expect(after.anonymous).toBe(before.anonymous! + 1);
        await check("after the moment passed");
      });
    }
  });
}

describeOnPostgres("two server processes on one PostgreSQL database", "PGlite cannot be opened by two processes", () => {
  // Each app has its own caches and pool; only the database is shared (PGlite cannot be opened twice).
  let apps: App[] = [];
  let urls: string[] = [];
  let drop = async () => {};
  let servers: import("node:http").Server[] = [];

  beforeAll(async () => {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL!);
    drop = scratch.drop;
    const config = { ...loadConfig(), databaseUrl: scratch.url, rateLimit: 0, loginRateLimit: 0, admin: undefined };
    apps = [await createApp({ config, inMemory: true, logger: silentLogger() }), await createApp({ config, inMemory: true, logger: silentLogger() })];
    servers = await Promise.all(apps.map((app) => new Promise<import("node:http").Server>((resolve) => {
      const listening = app.app.listen(0, "127.0.0.1", () => resolve(listening));
    })));
    urls = servers.map((server) => `http://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}`);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await Promise.all(apps.map((app) => app.close()));
    await drop();
  });

  let token = "";
  const signIn = async () => {
    if (token) return token;
    const { hashPassword } = await import("../src/users/passwords.js");
    const user = await apps[0]!.db.prisma.user.create({
      data: { username: "writer", email: "writer@example.test", name: "Writer", passwordHash: await hashPassword("writer-password"), isAdmin: true },
    });
    token = await fetch(`${urls[0]}/api/developer/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "password", username: user.username, password: "writer-password" }),
    }).then(async (response) => ((await response.json()) as { access_token: string }).access_token);
    return token;
  };
  const call = async (base: string, method: string, path: string, body?: object) => {
    const response = await fetch(`${base}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${await signIn()}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: response.status === 204 ? null : ((await response.json()) as Record<string, any>) };
  };

  it("a search on one process shows the exact total straight after writes through the other", async () => {
    await signIn();
    const totalOn = async (base: string, anonymous = false) => {
      const response = await fetch(`${base}/api/wiki/list?scope=project&scope_id=42&search=quagga&limit=0`, anonymous ? {} : { headers: { authorization: `Bearer ${token}` } });
      const body = (await response.json()) as { pages: unknown[]; total: number };
      expect(body.total).toBe(body.pages.length);
      return body.total;
    };
    const [first, second] = urls as [string, string];
    const page = (title: string, pagetext: string, state = 1) => ({ title, pagetext, state, scope: "project", scope_id: 42 });
    // Both processes have counted the search once (both callers), so each holds the totals in its cache.
    expect([await totalOn(first), await totalOn(first, true), await totalOn(second), await totalOn(second, true)]).toEqual([0, 0, 0, 0]);
    const ids: number[] = [];
    for (let index = 0; index < 3; index++) {
      const created = await call(first, "POST", "/wiki", page(`Quagga ${index}`, "text"));
      expect(created.status).toBe(201);
      ids.push(created.body!.id);
      expect([await totalOn(second, true), await totalOn(second)]).toEqual([index + 1, index + 1]);
    }
    const plain = await call(second, "POST", "/wiki", page("Plain", "nothing to find"));
    expect([await totalOn(first, true), await totalOn(first)]).toEqual([3, 3]);
    // A new revision whose text matches: the database copies it into search_text.
    expect((await call(second, "PUT", `/wiki/${plain.body!.id}`, page("Plain", "now with a quagga in it"))).status).toBe(200);
    expect([await totalOn(first, true), await totalOn(first)]).toEqual([4, 4]);
    expect((await call(first, "PUT", `/wiki/${ids[0]}`, page("Quagga 0", "text", 0))).status).toBe(200);
    expect([await totalOn(second, true), await totalOn(second)]).toEqual([3, 4]);
    expect((await call(second, "PUT", `/wiki/${ids[1]}`, page("Renamed", "text"))).status).toBe(200);
    expect([await totalOn(first, true), await totalOn(first)]).toEqual([2, 3]);
    expect((await call(first, "DELETE", `/wiki/${ids[2]}`)).status).toBe(204);
    expect([await totalOn(second, true), await totalOn(second), await totalOn(first, true), await totalOn(first)]).toEqual([1, 2, 1, 2]);
  });

  it("a list on one process shows the exact total straight after writes through the other", async () => {
    await signIn();
    const totalOn = async (base: string, anonymous = false) => {
      const response = await fetch(`${base}/api/wiki/list?scope=project&scope_id=41&limit=0`, anonymous ? {} : { headers: { authorization: `Bearer ${token}` } });
      const body = (await response.json()) as { pages: unknown[]; total: number };
      expect(body.total).toBe(body.pages.length);
      return body.total;
    };
    const [first, second] = urls as [string, string];
    // Both processes have listed the scope once, so anything they might keep from it is warm.
    expect([await totalOn(first), await totalOn(second, true)]).toEqual([0, 0]);
    const ids: number[] = [];
    for (let index = 0; index < 3; index++) {
      const created = await call(first, "POST", "/wiki", { title: `Shared ${index}`, pagetext: "text", state: 1, scope: "project", scope_id: 41 });
      expect(created.status).toBe(201);
      ids.push(created.body!.id);
      expect(await totalOn(second, true)).toBe(index + 1);
    }
    expect((await call(second, "PUT", `/wiki/${ids[0]}`, { title: "Shared 0", pagetext: "text", state: 0, scope: "project", scope_id: 41 })).status).toBe(200);
    expect([await totalOn(first, true), await totalOn(first)]).toEqual([2, 3]);
    expect((await call(first, "DELETE", `/wiki/${ids[1]}`)).status).toBe(204);
    expect([await totalOn(second, true), await totalOn(second)]).toEqual([1, 2]);
  });
});

import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GraphQLObjectType, getNamedType, isNonNullType } from "graphql";
import { MAX_PAGE_SIZE } from "../src/common/list-spec.js";
import { schema } from "../src/graphql/schema.js";
import { restOperations } from "../rest-facade/table.js";
import { contractAreas, documentedIn, graphqlList, graphqlScope, listedRecords, listedTotal, listRequest, listRow, listTakes, usersCreate, recordIdName, recordPath, scopedRequest, type Where } from "./areas.js";
import { startServer, type Cast, type RestResult, type TestServer } from "./server.js";

/**
 * The contract suite: the rules every list area shares (the contract's paging, sort, search, access,
 * ownership and scope rules), checked once for every area that declares them in its
 * src/<area>/testing.ts. Area test files keep only what is specific to the area.
 */
for (const testing of contractAreas("contract")) {
  const contract = testing.contract;
  const { spec } = contract;

  describe(`${testing.area}: the contract's list, access and ownership rules`, () => {
    let server: TestServer;
    let cast: Cast;

    beforeAll(async () => {
      server = await startServer();
      cast = await server.cast(`contract-${testing.area}`);
    });
    afterAll(() => server?.close());

    /**
     * Scoped areas keep each test's records in a scope of its own; unscoped ones share the one list. A list
     * whose path names its scope gets a fresh one (a group made by the administrator, its manager), where
     * the cast's manager is a manager too and the cast's member a member: `{ group: "<gidNumber>" }`.
     */
    let scopes = 0;
    const fromPath = contract.list.scopeFromPath;
    const ownScope = async (): Promise<Where> => {
      if (!fromPath) return spec.scoped ? { scope: "project", scope_id: ++scopes } : {};
      const made = await fromPath.make(server, cast.admin.token);
      await fromPath.addMember(server, made.scopeId, cast.manager.id, true);
      await fromPath.addMember(server, made.scopeId, cast.member.id);
      return { [fromPath.placeholder]: made.value };
    };
    // The row's own name for the page's start (the forum's `limitstart`).
    const startName = listRow(contract).params.find((param) => param.variable === "start")?.name ?? "start";
    const list = (query: Where, token?: string) => {
      const { start, ...rest } = query;
      const request = listRequest(contract, { ...rest, ...(start === undefined ? {} : { [startName]: start }) });
      return server.rest(request.method, request.path, { query: request.query, token });
    };
    /** `sort`, `sort_Dir` and `search` go through the REST list where its row takes them, else through the GraphQL list (a group plugin's twin). */
    const restSorts = listTakes(contract, "sort");
    const restSearches = listTakes(contract, "search");
    const items = (response: RestResult) => listedRecords(contract, response.body);
    const totalOf = (response: RestResult) => listedTotal(contract, response);
    const idKey = contract.list.idKey ?? "id";
    const ids = (response: RestResult) => items(response).map((item) => item[idKey] as number);
    /** The REST key holding a sort column's values (the sort name, unless the contract maps it). */
    const sortKey = (sort: string) => contract.list.sortKeys?.[sort] ?? sort;
    /** Record-shaped rules (reads by id, updates, access levels, ownership) apply unless the area says they do not. */
    const recordRules = !contract.skips?.["contract records"];
    const create = (values: Record<string, unknown>, token = cast.admin.token) => testing.create(server, token, values);
    /** A record row's path: its id, and the path's scope (the read's, update's and delete's `{group}`: the fixture group unless `where` says). */
    const pathOf = (template: string, id: number | string, where: Where = {}) => recordPath(template, id, where);

    describe("paging", () => {
      let where: Where;
      let made: number[];

      beforeAll(async () => {
        where = await ownScope();
        made = [];
        // Titles run against creation order and authors alternate, so no sort falls back to id order by
        // accident and relations (authors) differ between records.
        // The cast's manager manages a path's scope (ownScope), not the suite's own `project` scopes, which nobody manages.
        const authors = usersCreate(contract) ? [cast.admin, cast.alice, cast.bob] : contract.writers === "managers" && fromPath ? [cast.admin, cast.manager] : [cast.admin];
        for (let index = 0; index < 105; index++) {
          made.push(await create({ ...where, title: `Bulk ${String(104 - index).padStart(3, "0")}` }, authors[index % authors.length]!.token));
        }
      });

      /**
       * A page and its total: through the REST list where its row pages, else through the GraphQL list (the
       * sections' row documents no paging: it answers the first page of the maximum size, checked below).
       */
      const restPages = listTakes(contract, "limit");
      const page = async (query: Where): Promise<{ ids: number[]; total: number }> => {
        if (restPages) {
          const response = await list(query);
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          return { ids: ids(response), total: totalOf(response) };
        }
        const { start, limit, sort, sort_Dir: sortDir, ...rest } = query;
        const paging = { limit, start, sort, sortDir };
        const answer = await graphqlList(server, contract, rest, Object.fromEntries(Object.entries(paging).filter(([, value]) => value !== undefined)));
        expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
        return { ids: answer.ids, total: answer.total };
      };

      it(`answers ${spec.defaults.limit} records by default with the total of all that match${restPages ? "" : " (through GraphQL: the REST list takes no paging)"}`, async () => {
        const answer = await page(where);
        expect(answer.ids).toHaveLength(spec.defaults.limit);
        expect(answer.total).toBeGreaterThanOrEqual(105);
        if (spec.scoped) expect(answer.total).toBe(105);
      });

      /** Sorted by id ascending where the list sorts, else in its fixed order (the same for every page). */
      const byId: Where = restSorts || !restPages ? { sort: "id", sort_Dir: "asc" } : {};

      it(`pages with limit and start, clamps to ${MAX_PAGE_SIZE} and treats 0 as the maximum${restPages ? "" : " (through GraphQL)"}`, async () => {
        const all = await page({ ...where, ...byId, limit: 0 });
        expect(all.ids).toHaveLength(MAX_PAGE_SIZE);
        const total = all.total;
        const last = await page({ ...where, ...byId, limit: 10, start: total - 5 });
        expect(last.ids).toHaveLength(5);
        expect(last.total).toBe(total);
        expect((await page({ ...where, limit: 500 })).ids).toHaveLength(MAX_PAGE_SIZE);
        if (restPages) expect(items(await list({ ...where, limit: "5" }))).toHaveLength(5);
        const second = await page({ ...where, ...byId, limit: 5, start: 5 });
        expect(second.ids).toEqual(all.ids.slice(5, 10));
        const beyond = await page({ ...where, start: total + 10 });
        expect(beyond.ids).toEqual([]);
        expect(beyond.total).toBe(total);
      });

      // The parameters the REST list row takes (a group plugin's: limit and start).
      it.each(
        (
          [
            ["limit", -1],
            ["limit", "many"],
            ["start", -5],
            ["sort", "password"],
            ["sort_Dir", "sideways"],
            ["scope_id", "seven"],
          ] as [string, string | number][]
        ).filter(([parameter]) => listTakes(contract, parameter)),
      )("refuses %s=%s with 400 naming it", async (parameter, value) => {
        const response = await list({ ...where, [parameter]: value });
        expect(response.status).toBe(400);
        expect(response.body.errors[0].parameter).toBe(parameter);
      });

      if (restSorts) {
        it("names every whitelisted column when refusing a sort", async () => {
          const response = await list({ ...where, sort: "password" });
          for (const column of Object.keys(spec.sortColumns)) expect(response.body.message).toContain(column);
        });
      }

      /**
       * A sorted page's ids and each record's values of the sort columns (REST keys, or the GraphQL fields
       * the whitelist names), through the REST list where it sorts, else through GraphQL.
       */
      const sorted = async (sort: string | undefined, direction: string | undefined, limit: number) => {
        if (restSorts) {
          const response = await list({ ...where, ...(sort ? { sort } : {}), ...(direction ? { sort_Dir: direction } : {}), limit });
          expect(response.status, `${sort}: ${JSON.stringify(response.body)}`).toBe(200);
          return { ids: ids(response), valuesOf: (column: string) => items(response).map((item) => item[sortKey(column)]), titles: items(response).map((item) => item.title) };
        }
        const answer = await graphqlList(server, contract, where, { ...(sort ? { sort } : {}), ...(direction ? { sortDir: direction } : {}), limit }, cast.admin.token, scalarFields(contract.list.graphql));
        expect(answer.errors, `${sort}: ${JSON.stringify(answer.errors)}`).toBeUndefined();
        const numeric = (value: unknown) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value);
        const valueOf = (column: string) => contract.list.sortValues?.[column] ?? ((item: Record<string, unknown>) => numeric(item[spec.sortColumns[column]!]));
        return { ids: answer.ids, valuesOf: (column: string) => answer.items.map(valueOf(column)), titles: answer.items.map((item) => item.title) };
      };

      it(`sorts by every whitelisted column (${Object.keys(spec.sortColumns).join(", ")}) in either direction${restSorts ? "" : " (through GraphQL: the REST list takes no sort)"}`, async () => {
        for (const sort of Object.keys(spec.sortColumns)) {
          const ascending = (await sorted(sort, "asc", 0)).valuesOf(sort);
          const descending = (await sorted(sort, "DESC", 0)).valuesOf(sort);
          expect(ascending, sort).toEqual([...ascending].sort(compare));
          expect(descending, sort).toEqual([...descending].sort(compare).reverse());
        }
        if (spec.sortColumns.title) {
          // Titles run against creation order: a list that ignored `sort` would come back in id order.
          const byTitle = await sorted("title", "asc", 3);
          expect(byTitle.titles).toEqual(["Bulk 000", "Bulk 001", "Bulk 002"]);
          expect(byTitle.ids).toEqual([made[104], made[103], made[102]]);
        }
      });

      it(`sorts by ${spec.defaults.sort} ${spec.defaults.sortDir} by default`, async () => {
        const explicit = await sorted(spec.defaults.sort, spec.defaults.sortDir, 0);
        expect((await sorted(undefined, undefined, 0)).ids).toEqual(explicit.ids);
        if (!restSorts) expect((await page({ ...where, limit: 0 })).ids).toEqual(explicit.ids);
      });

      if (spec.scoped && !fromPath) {
        it('lists the site scope (scope "site", scope_id 0) when no scope is given', async () => {
          await create({ scope: "site", scope_id: 0, title: "On the site" });
          const response = await list({ limit: 0 });
          expect(items(response).length).toBeGreaterThan(0);
          expect(items(response).every((item) => item.scope === "site" && item.scope_id === 0)).toBe(true);
          expect(ids(await list({ limit: 0, scope: "site", scope_id: 0 }))).toEqual(ids(response));
        });
      }

      /**
       * A page of every field two levels deep through GraphQL, as the administrator, with the SQL it ran.
       * Documents are compiled from their second run on; `tag`, a comment, makes the text a document of its own.
       */
      const everyFieldPage = (limit: number, tag: string) => {
        const scope = graphqlScope(contract, where);
        const query = `query(${[scope.declarations, "$limit: Int"].filter(Boolean).join(", ")}) {
          ${contract.list.graphql}(${[scope.args, "limit: $limit"].filter(Boolean).join(", ")}) { items ${everyField(contract.list.graphql)} total } }
          # ${tag}`;
        return server.recordQueries(async () => {
          const response = await fetch(`${server.url}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${cast.admin.token}` },
            body: JSON.stringify({ query, variables: { limit, ...scope.variables } }),
          });
          return (await response.json()) as { data?: Record<string, { items: unknown[] }>; errors?: unknown[] };
        });
      };

      it("costs as many SQL statements for 25 records as for 2 through every list row (100 as 2 where it takes no paging), and for 10 as for 2 through GraphQL with every field", async () => {
        // The area's own list rows (a group plugin's list, in the groups area, is its declaration's: src/groups/plugins.testing.ts),
        // and the contract's list row (a group plugin's, for its area).
        const rows = restOperations.filter(
          (operation) => (documentedIn(operation) === testing.area || (operation.method === (contract.list.method ?? "GET") && operation.path === contract.list.path)) && ["list", "array"].includes(operation.response.kind),
        );
        expect(rows.length).toBeGreaterThan(0);
        // A row that takes no paging (the sections') answers a scope of 2 records, and this one's first 100.
        let twoRecords: Where | undefined;
        for (const row of rows) {
          const paged = row.params.some((param) => param.variable === "limit");
          if (!paged && !twoRecords) {
            twoRecords = await ownScope();
            for (const title of ["One", "Two"]) await create({ ...twoRecords, title });
          }
          for (const version of row.versions) {
            const run = (scope: Where, limit?: number) => {
              const request = scopedRequest(row.path, { ...contract.list.query, ...scope });
              return server.recordQueries(() => server.rest(row.method, request.path, { query: { ...request.query, ...(paged ? { limit } : {}), v: version }, token: cast.admin.token }));
            };
            const [small, large] = paged ? [await run(where, 2), await run(where, 25)] : [await run(twoRecords!), await run(where)];
            expect(items(small.result)).toHaveLength(2);
            expect(items(large.result)).toHaveLength(paged ? 25 : MAX_PAGE_SIZE);
            expect(large.queries.length, `${row.path} ${version}: ${large.queries.join("\n")}`).toBe(small.queries.length);
          }
        }
        // 10, not 25: every field two levels deep (a page's 25 revisions each) is over the query cost limit at 25.
        const [small, large] = [await everyFieldPage(2, "sizes"), await everyFieldPage(10, "sizes")];
        expect(large.result.errors, JSON.stringify(large.result.errors)).toBeUndefined();
        expect(large.result.data![contract.list.graphql]!.items).toHaveLength(10);
        expect(large.queries.length, large.queries.join("\n")).toBe(small.queries.length);
      });

      it("runs the same SQL statements for a page with every field two levels deep on its first run (interpreted) and its later ones (compiled)", async () => {
        // A document of its own (the comment), so its first run here is its first run at all: interpreted.
        const tag = `runs ${crypto.randomUUID()}`;
        const run = () => everyFieldPage(10, tag);
        const first = await run();
        expect(first.result.errors, JSON.stringify(first.result.errors)).toBeUndefined();
        for (const later of [await run(), await run()]) {
          expect(later.result).toEqual(first.result);
          // Sorted: statements of one batch level may be sent in either order.
          expect([...later.queries].sort()).toEqual([...first.queries].sort());
        }
      });

      it("lists the same records with the same total through GraphQL", async () => {
        // By id where the REST list sorts, else both in the list's default order.
        const sort: Where = restSorts ? { sort: "id" } : {};
        // A REST list that takes no paging (the sections') answers one page of the maximum size.
        const paging: Where = restPages ? { limit: 7, start: 3 } : { limit: 0 };
        const answer = await graphqlList(server, contract, where, { ...paging, ...sort });
        expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
        const rest = await list({ ...where, ...(restPages ? paging : {}), ...sort });
        expect(answer.ids).toEqual(ids(rest));
        expect(answer.total).toBe(totalOf(rest));
      });
    });

    if (contract.read && recordRules) {
      it("answers 400 naming id (a group plugin's: record_id) for a non-numeric id, and 404 for an unknown one, on reads and writes", async () => {
        const rows = [["GET", contract.read!.path], [contract.update?.method, contract.update?.path], ["PATCH", contract.update?.path], ["DELETE", contract.remove?.path]] as const;
        const where = await ownScope();
        for (const [method, template] of rows) {
          if (!method || !template) continue;
          // A whole, valid record body, so the id is the only thing wrong (PATCH: an empty change).
          const body =
            method === "PUT"
              ? contract.update!.body((await server.rest("GET", pathOf(contract.read!.path, await create(where), where), { token: cast.admin.token })).body)
              : method === "PATCH"
                ? {}
                : undefined;
          for (const id of ["abc", "0", "-1"]) {
            const bad = await server.rest(method, pathOf(template, id, where), { token: cast.admin.token, body });
            expect(bad.status, `${method} ${template} with ${id}`).toBe(400);
            expect(bad.body.errors[0].parameter).toBe(recordIdName(template));
          }
          const unknown = await server.rest(method, pathOf(template, 987654, where), { token: cast.admin.token, body });
          expect(unknown.status, `${method} ${template}: ${JSON.stringify(unknown.body)}`).toBe(404);
        }
      });
    }

    if (contract.update && contract.read && recordRules && !contract.skips?.["contract partial update"]) {
      const update = contract.update;
      const put = restOperations.find((operation) => operation.method === "PUT" && operation.path === update.path)!;
      describe(`PATCH ${update.path}: the partial update (contract: PUT replaces, PATCH changes only what it names)`, () => {
        const read = async (id: number) => (await server.rest("GET", pathOf(contract.read!.path, id), { token: cast.admin.token })).body as Record<string, unknown>;
        const patch = (id: number, token: string | undefined, body: Record<string, unknown>) => server.rest("PATCH", pathOf(update.path, id), { token, body });
        const bodyOnly = put.params.filter((param) => !put.path.includes(`{${param.name}}`));
        /** PUT's required fields, as the record holds them; the first string among them is the one changed. */
        const required = bodyOnly.filter((param) => param.required);
        const changed = required.find((param) => param.type === "string")!.name;
        const defaultOf = (name: string) => put.params.find((param) => param.name === name)?.default;
        /** A published record whose state and access differ from PUT's defaults, so a default applied by mistake shows. */
        const unlikeDefaults = async (token: string, values: Record<string, unknown> = {}) => {
          const access = contract.access?.levels.map((level) => level.value).find((value) => value !== defaultOf("access"));
          return create({ ...(await ownScope()), state: 1, ...(access === undefined ? {} : { access }), ...values }, token);
        };

        const keptByPut = (name: string) => Boolean(put.params.find((param) => param.name === name)?.privacy);
        it(`changes ${changed} alone, where PUT with the same body also resets state to its default (and keeps access: a PUT never widens privacy)`, async () => {
          const id = await unlikeDefaults(cast.alice.token);
          const before = await read(id);
          expect(before.state).not.toBe(defaultOf("state"));
          const body = { ...Object.fromEntries(required.map((param) => [param.name, before[param.name]])), [changed]: `${before[changed]} (changed)` };

          const patched = await patch(id, cast.alice.token, body);
          expect(patched.status, JSON.stringify(patched.body)).toBe(200);
          const afterPatch = await read(id);
          expect(afterPatch).toEqual({ ...before, [changed]: body[changed], modified: afterPatch.modified });

          const replaced = await server.rest("PUT", pathOf(update.path, id), { token: cast.alice.token, body });
          expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
          const afterPut = await read(id);
          for (const name of ["state", ...(contract.access ? ["access"] : [])]) {
            expect(afterPatch[name], `${name} after PATCH`).toBe(before[name]);
            expect(afterPut[name], `${name} after PUT`).toBe(keptByPut(name) ? before[name] : defaultOf(name));
          }
        });

        it("answers an empty PATCH with the record unchanged, to those who may change it; 403 or 404 to others", async () => {
          const shown = await unlikeDefaults(cast.alice.token);
          const hidden = await unlikeDefaults(cast.alice.token, { state: 0 });
          const before = await read(shown);
          for (const token of [cast.alice.token, cast.admin.token]) {
            const answer = await patch(shown, token, {});
            expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            expect(answer.body).toMatchObject({ id: shown, [changed]: before[changed], modified: before.modified });
          }
          expect(await read(shown)).toEqual(before);
          expect((await patch(shown, undefined, {})).status).toBe(401);
          expect((await patch(shown, cast.bob.token, {})).status).toBe(403);
          const unseen = await patch(hidden, cast.bob.token, {});
          expect(unseen.status).toBe(404);
          expect(unseen.body).toEqual({ message: contract.notFound(hidden), code: 404 });
        });

        it("lets the creator and administrators change a record; other users get 403, or 404 when they cannot see it", async () => {
          const shown = await unlikeDefaults(cast.alice.token);
          const hidden = await unlikeDefaults(cast.alice.token, { state: 0 });
          expect((await patch(shown, cast.bob.token, { [changed]: "by bob" })).status).toBe(403);
          expect((await patch(hidden, cast.bob.token, { [changed]: "by bob" })).status).toBe(404);
          expect((await patch(hidden, cast.alice.token, { [changed]: "by the creator" })).body[changed]).toBe("by the creator");
          expect((await patch(shown, cast.admin.token, { [changed]: "by an administrator" })).body[changed]).toBe("by an administrator");
          expect((await read(shown)).state).toBe(1);
          expect((await read(hidden)).state).toBe(0);
        });

        it("validates a present field as PUT does, refuses null for a field it cannot clear, and changes nothing then", async () => {
          const id = await unlikeDefaults(cast.alice.token);
          const before = await read(id);
          for (const [body, parameter] of [
            [{ state: "abc" }, "state"],
            [{ state: 7 }, "state"],
            [{ [changed]: null }, changed],
            [{ [changed]: "valid", created_by: 987654 }, "created_by"],
          ] as const) {
            const answer = await patch(id, cast.admin.token, body);
            expect(answer.status, JSON.stringify(body)).toBe(400);
            expect(answer.body.errors[0].parameter, JSON.stringify(body)).toBe(parameter);
          }
          expect(await read(id)).toEqual(before);
        });
      });
    }

    if (spec.search && contract.searchField) {
      it(`searches the ${spec.search.in} case-insensitively, taking % and _ literally`, async () => {
        const where = await ownScope();
        const field = contract.searchField!;
        await create({ ...where, [field]: "Quantum notes" });
        await create({ ...where, [field]: "no QUANTUM here" });
        await create({ ...where, [field]: "Bulk_0 and 100% done" });
        await create({ ...where, [field]: "Bulk 00" });
        // Through the REST list where its row takes `search`, else through GraphQL (a group plugin's twin).
        const total = async (search: string) => (restSearches ? totalOf(await list({ ...where, search })) : (await graphqlList(server, contract, where, { search }, cast.admin.token)).total);
        expect(await total("quantum")).toBe(2);
        expect(await total("quantum HERE")).toBe(1);
        expect(await total("quantum there")).toBe(0);
        expect(await total("%")).toBe(1);
        expect(await total("Bulk_0")).toBe(1);
        expect(await total("100%")).toBe(1);
        expect(await total("_")).toBe(1);
      });
    }

    if (contract.access && recordRules && !contract.skips?.["contract access levels"]) {
      const levels = contract.access;
      describe(`access levels (${levels.description}) and state in reads, lists and totals`, () => {
        let where: Record<string, string | number>;
        let groupWhere: Record<string, string | number>;
        const named = new Map<string, number>();

        beforeAll(async () => {
          where = await ownScope();
          groupWhere = { scope: "group", scope_id: cast.groupId };
          for (const level of levels.levels) {
            named.set(`published ${level.value}`, await create({ ...where, title: `published ${level.value}`, state: 1, access: level.value }, cast.alice.token));
          }
          named.set("draft", await create({ ...where, title: "draft", state: 0, access: levels.valuesOf("public")[0] }, cast.alice.token));
          named.set("group private", await create({ ...groupWhere, title: "group private", state: 1, access: levels.valuesOf("private")[0] }, cast.member.token));
          named.set("group draft", await create({ ...groupWhere, title: "group draft", state: 0, access: levels.valuesOf("public")[0] }, cast.member.token));
        });

        const titlesOf = (level: "public" | "registered" | "private") => levels.valuesOf(level).map((value) => `published ${value}`);
        const seenBy = async (token: string | undefined) => {
          const titles: string[] = [];
          for (const scope of [where, groupWhere]) {
            const response = await list({ ...scope, limit: 0 }, token);
            expect(response.body.total).toBe(items(response).length);
            titles.push(...items(response).map((item) => item.title as string));
          }
          return titles.filter((title) => named.has(title)).sort();
        };
        const readable = async (token: string | undefined) => {
          const titles: string[] = [];
          for (const [title, id] of named) {
            const response = await server.rest("GET", pathOf(contract.read!.path, id), { token });
            expect([200, 404], JSON.stringify(response.body)).toContain(response.status);
            if (response.status === 200) titles.push(title);
            else expect(response.body).toEqual({ message: contract.notFound(id), code: 404 });
          }
          return titles.sort();
        };

        it("anonymous callers see published public records only", async () => {
          const expected = titlesOf("public").sort();
          expect(await seenBy(undefined)).toEqual(expected);
          if (contract.read) expect(await readable(undefined)).toEqual(expected);
        });

        it("signed-in users see registered records too; group members their group's private records", async () => {
          const registered = [...titlesOf("public"), ...titlesOf("registered")];
          expect(await seenBy(cast.bob.token)).toEqual(registered.sort());
          expect(await seenBy(cast.manager.token)).toEqual([...registered, "group private"].sort());
          if (contract.read) {
            expect(await readable(cast.bob.token)).toEqual(registered.sort());
            expect(await readable(cast.manager.token)).toEqual([...registered, "group private"].sort());
          }
        });

        it("creators and administrators see everything of theirs, drafts and private records included", async () => {
          const everything = [...named.keys()].sort();
          const alices = everything.filter((title) => !title.startsWith("group"));
          expect(await seenBy(cast.alice.token)).toEqual(alices);
          expect(await seenBy(cast.member.token)).toEqual([...titlesOf("public"), ...titlesOf("registered"), "group draft", "group private"].sort());
          expect(await seenBy(cast.admin.token)).toEqual(everything);
          if (contract.read) {
            expect(await readable(cast.alice.token)).toEqual(alices);
            expect(await readable(cast.member.token)).toEqual([...titlesOf("public"), ...titlesOf("registered"), "group draft", "group private"].sort());
            expect(await readable(cast.admin.token)).toEqual(everything);
          }
        });

        it("the database refuses access and state values the area does not document", async () => {
          const id = named.get("draft")!;
          const undocumented = [2, 3, 6, 9].find((value) => !levels.levels.some((level) => level.value === value))!;
          const set = (column: string, value: number) =>
            server.app.db.prisma.$executeRawUnsafe(`UPDATE "${contract.table}" SET "${column}" = $1 WHERE id = $2`, value, id);
          // (PGlite's driver adapter drops the constraint's message, so the row itself is checked.)
          const row = async () => (await server.rest("GET", pathOf(contract.read!.path, id), { token: cast.admin.token })).body;
          const before = await row();
          await expect(set("access", undocumented)).rejects.toThrow();
          await expect(set("state", 2)).rejects.toThrow();
          expect(await row()).toEqual(before);
          expect(await set("access", levels.valuesOf("public")[0]!)).toBe(1);
        });

        it("GraphQL lists the same records with the same total for every caller", async () => {
          const query = `query($scope: String, $scopeId: Int) { ${contract.list.graphql}(scope: $scope, scopeId: $scopeId, limit: 0, sort: "id") { items { id } total } }`;
          for (const token of [undefined, cast.bob.token, cast.alice.token, cast.member.token, cast.admin.token]) {
            for (const scope of [where, groupWhere]) {
              const response = await fetch(`${server.url}/graphql`, {
                method: "POST",
                headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
                body: JSON.stringify({ query, variables: { scope: scope.scope, scopeId: scope.scope_id } }),
              });
              const { data } = (await response.json()) as { data: Record<string, { items: { id: string }[]; total: number }> };
              const rest = await list({ ...scope, limit: 0, sort: "id" }, token);
              expect(data[contract.list.graphql]!.items.map((item) => Number(item.id))).toEqual(ids(rest));
              expect(data[contract.list.graphql]!.total).toBe(rest.body.total);
            }
          }
        });
      });
    }

    if (contract.writers === "managers" && fromPath) {
      it("lets the scope's managers and administrators alone create records: its plain members and other users get 403, anonymous callers 401", async () => {
        const where = await ownScope();
        await expect(create(where, cast.member.token)).rejects.toThrow(/\(403\)/);
        await expect(create(where, cast.alice.token)).rejects.toThrow(/\(403\)/);
        // No token: the fixture sends no Authorization header.
        await expect(create(where, "")).rejects.toThrow(/\(401\)/);
        expect(await create(where, cast.manager.token)).toBeGreaterThan(0);
        expect(await create(where, cast.admin.token)).toBeGreaterThan(0);
      });
    }

    if (contract.writers === "administrators" && recordRules) {
      it("lets administrators alone create records", async () => {
        await expect(create({}, cast.alice.token)).rejects.toThrow(/\(200\).*FORBIDDEN|\(403\)/);
        expect(await create({}, cast.admin.token)).toBeGreaterThan(0);
      });
    }

    if (contract.update && contract.remove && contract.writers === "users" && recordRules) {
      const update = contract.update;
      const remove = contract.remove;
      describe("who may change and delete a record", () => {
        // PUT replaces: each change sends the record's current values back (as the area says), plus the change.
        const current = new Map<number, Record<string, unknown>>();
        const change = (id: number, token: string | undefined, values: Record<string, unknown> = {}) =>
          server.rest(update.method, pathOf(update.path, id), { token, body: { ...update.body(current.get(id)!), ...values } });
        const stored = async (id: number) => (await server.rest("GET", pathOf(contract.read!.path, id), { token: cast.admin.token })).body as Record<string, unknown>;
        const remember = async (id: number) => {
          current.set(id, await stored(id));
          return id;
        };

        it("the creator and administrators change and delete; other users get 403, or 404 when they cannot see it", async () => {
          const where = await ownScope();
          const shown = await remember(await create({ ...where, state: 1 }, cast.alice.token));
          const hidden = await remember(await create({ ...where, state: 0 }, cast.alice.token));
          expect((await change(shown, undefined)).status).toBe(401);
          expect((await change(shown, cast.bob.token)).status).toBe(403);
          expect((await change(hidden, cast.bob.token)).status).toBe(404);
          expect((await server.rest("DELETE", pathOf(remove.path, shown), { token: cast.bob.token })).status).toBe(403);
          expect((await server.rest("DELETE", pathOf(remove.path, hidden), { token: cast.bob.token })).status).toBe(404);
          expect((await change(shown, cast.alice.token, { title: "by the creator" })).status).toBe(200);
          expect((await change(shown, cast.admin.token, { title: "by an administrator" })).status).toBe(200);
          const deleted = await server.rest("DELETE", pathOf(remove.path, shown), { token: cast.alice.token });
          expect(deleted.status).toBe(204);
          expect(deleted.body).toBeNull();
          expect((await server.rest("DELETE", pathOf(remove.path, hidden), { token: cast.admin.token })).status).toBe(204);
          expect((await server.rest("GET", pathOf(contract.read!.path, hidden), { token: cast.admin.token })).status).toBe(404);
        });

        it("group managers change and delete the group's records, drafts included; plain members do not", async () => {
          const group = { scope: "group", scope_id: cast.groupId };
          const draft = await remember(await create({ ...group, state: 0 }, cast.member.token));
          const byManager = await remember(await create({ ...group, state: 1 }, cast.manager.token));
          // The manager may change the draft but not read it: the change is done, the record is not shown (issue 7).
          const edited = await change(draft, cast.manager.token, { title: "edited by the manager" });
          expect(edited.status).toBe(204);
          expect(edited.body).toBeNull();
          expect((await stored(draft)).title).toBe("edited by the manager");
          expect((await change(byManager, cast.member.token)).status).toBe(403);
          expect((await server.rest("DELETE", pathOf(remove.path, byManager), { token: cast.member.token })).status).toBe(403);
          expect((await server.rest("DELETE", pathOf(remove.path, draft), { token: cast.manager.token })).status).toBe(204);
          expect((await server.rest("GET", pathOf(contract.read!.path, draft), { token: cast.admin.token })).status).toBe(404);
        });

        it("only administrators name or change created_by; a manager cannot claim a member's record", async () => {
          const where = await ownScope();
          await expect(create({ ...where, created_by: cast.bob.id }, cast.alice.token)).rejects.toThrow(/\(403\).*Only administrators can change created_by/);
          await expect(create({ ...where, created_by: 987654 }, cast.admin.token)).rejects.toThrow(/\(400\).*created_by/);
          const own = await create({ ...where, created_by: cast.alice.id }, cast.alice.token);
          expect((await stored(own)).created_by).toBe(cast.alice.id);
          const byAdmin = await create({ ...where, created_by: cast.bob.id, created: "2020-01-02 03:04:05" }, cast.admin.token);
          const record = await server.rest("GET", pathOf(contract.read!.path, byAdmin), { token: cast.admin.token });
          expect(record.body).toMatchObject({ created_by: cast.bob.id, created: "2020-01-02 03:04:05" });

          const group = { scope: "group", scope_id: cast.groupId };
          const members = await remember(await create({ ...group, state: 1 }, cast.member.token));
          const claimed = await change(members, cast.manager.token, { created_by: cast.manager.id });
          expect(claimed.status).toBe(403);
          expect(claimed.body.message).toContain("created_by");
          expect((await change(members, cast.member.token, { created_by: cast.alice.id })).status).toBe(403);
          const edited = await change(members, cast.manager.token, { title: "edited by the manager", created_by: cast.member.id });
          expect(edited.status, JSON.stringify(edited.body)).toBe(200);
          expect(edited.body).toMatchObject({ title: "edited by the manager", created_by: cast.member.id });
          const handed = await change(members, cast.admin.token, { created_by: cast.bob.id });
          expect(handed.status).toBe(200);
          expect(handed.body.created_by).toBe(cast.bob.id);
          expect((await stored(members)).created_by).toBe(cast.bob.id);
          const unknown = await change(members, cast.admin.token, { created_by: 987654 });
          expect(unknown.status).toBe(400);
          expect(unknown.body.errors[0].parameter).toBe("created_by");
        });

        it("only group members write in a group's scope, only that member in a member scope, and the group must exist", async () => {
          const group = { scope: "group", scope_id: cast.groupId };
          await expect(create(group, cast.alice.token)).rejects.toThrow(/\(403\).*Only members/);
          expect(await create(group, cast.member.token)).toBeGreaterThan(0);
          await expect(create({ scope: "group", scope_id: 987654 }, cast.member.token)).rejects.toThrow(/\(400\).*"parameter":"scope_id"/);
          await expect(create({ scope: "member", scope_id: cast.bob.id }, cast.alice.token)).rejects.toThrow(/\(403\).*Only that member/);
          expect(await create({ scope: "member", scope_id: cast.alice.id }, cast.alice.token)).toBeGreaterThan(0);
        });
      });
    }
  });
}

/**
 * A selection of every field of a list's item type that needs no arguments: scalars by name, and each
 * relation (one record or a list) with its own fields, two levels deep, so relations count in the statements.
 */
function everyField(listField: string): string {
  const field = schema.getQueryType()!.getFields()[listField]!;
  const list = getNamedType(field.type) as GraphQLObjectType;
  const item = getNamedType(list.getFields().items!.type) as GraphQLObjectType;
  const selection = (type: GraphQLObjectType, depth: number): string =>
    Object.values(type.getFields())
      .filter((child) => child.args.every((arg) => !isNonNullType(arg.type)))
      .flatMap((child) => {
        const named = getNamedType(child.type);
        if (!(named instanceof GraphQLObjectType)) return [child.name];
        return depth > 0 ? [`${child.name} { ${selection(named, depth - 1)} }`] : [];
      })
      .join(" ");
  // Two levels: the items' relations and theirs (a page's revisions and each revision's author).
  return `{ ${selection(item, 2)} }`;
}

/** The scalar fields of a list's item type, as a selection. */
function scalarFields(listField: string): string {
  const list = getNamedType(schema.getQueryType()!.getFields()[listField]!.type) as GraphQLObjectType;
  const item = getNamedType(list.getFields().items!.type) as GraphQLObjectType;
  return Object.values(item.getFields())
    .filter((field) => !(getNamedType(field.type) instanceof GraphQLObjectType) && field.args.every((arg) => !isNonNullType(arg.type)))
    .map((field) => field.name)
    .join(" ");
}

/** Orders REST values the way PostgreSQL orders the column: numbers numerically, text by code point here. */
function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const [x, y] = [String(a ?? ""), String(b ?? "")];
  return x < y ? -1 : x > y ? 1 : 0;
}

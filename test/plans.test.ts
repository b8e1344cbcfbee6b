import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../src/generated/prisma/client.js";
import { listStatements } from "../src/common/paging.js";
import type { Caller } from "../src/common/list-spec.js";
import { accessFieldOf, type RecordsDeclaration } from "../src/common/records.js";
import { modelInfo } from "../src/common/model.js";
import { sqlClientOf } from "../src/db/sql.js";
import { contractAreas } from "./areas.js";
import { startServer, type TestServer } from "./server.js";
import { describePlan, explainNodes, explainPlan as explainShared, nodesOf, type PlanNode } from "./plan.js";

/**
 * The plan test: for every list of every area (src/<area>/testing.ts), each query shape — each sort in
 * both directions, the scope filter (site and a group), each declared area filter, search, and the
 * total — as an anonymous caller, a signed-in group member and an administrator, over ~10^4 seeded rows
 * after ANALYZE, must be answered by PostgreSQL's planner through indexes: no sequential scan of the
 * listed table (nor of list_count_days), a windowed list's total reading from the table no more than the
 * records whose window opens or closes later today, and no sort at all unless the shape searches (a search's total counts the matches its
 * trigram indexes find; its page walks the sort's index, or sorts those matches when the planner expects
 * few). A list without the index for a sort column fails here (docs/adding-an-area.md).
 */
const ROWS = 10_000;

/** The nodes that run per row of their parent: every node but those below an InitPlan (run once per statement). */
const perRowNodesOf = (plan: PlanNode): PlanNode[] =>
  plan["Parent Relationship"] === "InitPlan" ? [] : [plan, ...(plan.Plans ?? []).flatMap(perRowNodesOf)];

/** Every list to plan: each area's contract list (one whose path names its scope, a group plugin's: in group scopes only). */
const planned = contractAreas("plans").map((testing) => ({
  testing,
  spec: testing.contract.spec,
  plan: testing.contract.plan,
  siteScope: !testing.contract.list.scopeFromPath,
}));

for (const { testing, spec, plan: declaredPlan, siteScope } of planned) {
  const records = spec.records;

  describe(`${testing.area}: every list shape is answered through indexes`, () => {
    let server: TestServer;
    let callers: Record<"anonymous" | "member" | "administrator", Caller>;
    let groupId: number;
    let table: string;

    beforeAll(async () => {
      server = await startServer();
      const cast = await server.cast(`plans-${testing.area}`);
      groupId = cast.groupId;
      const db = server.app.db.prisma;
      table = modelInfo(db, records.model).table;
      const authors = [cast.alice.id, cast.bob.id, cast.member.id, cast.manager.id];
      await sqlClientOf(db).query(declaredPlan?.seed?.(ROWS, { authors, groupId }) ?? seedRows(db, records, ROWS, { authors, groupId }));
      // VACUUM too, as on a live site: it also moves new trigram entries out of GIN's pending list.
      await sqlClientOf(db).query(Prisma.sql`VACUUM ANALYZE ${Prisma.raw(`"${table}"`)}`);
      await sqlClientOf(db).query(Prisma.sql`ANALYZE list_counts`);
      callers = {
        anonymous: { db, viewer: { user: null, via: "anonymous" } },
        member: { db, viewer: { user: { id: cast.member.id, username: cast.member.username, isAdmin: false }, via: "token" } },
        administrator: { db, viewer: { user: { id: cast.admin.id, username: cast.admin.username, isAdmin: true }, via: "token" } },
      };
    }, 120_000);
    afterAll(() => server?.close());

    const explainPlan = (statement: Prisma.Sql) => explainShared(sqlClientOf(server.app.db.prisma), statement);
    const explain = async (statement: Prisma.Sql) => nodesOf(await explainPlan(statement));
    // What a statement read from the listed table when run: rows returned and rows filtered out, by every scan of it.
    const rowsRead = async (statement: Prisma.Sql) => {
      return (await explainNodes(sqlClientOf(server.app.db.prisma), statement, { analyze: true }))
        .filter((node) => node["Relation Name"] === table)
        .reduce((sum, node) => sum + (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0), 0);
    };

    const shapes: { name: string; args: Record<string, string | number>; filters?: Record<string, string | number> }[] = [];
    const scopes = spec.scoped ? [...(siteScope ? [{ scope: "site", scopeId: 0 }] : []), { scope: "group", scopeId: -1 }] : [{}];
    for (const scope of scopes) {
      for (const sort of Object.keys(spec.sortColumns)) {
        for (const sortDir of ["asc", "desc"]) shapes.push({ name: `sort=${sort} ${sortDir}${"scope" in scope ? ` scope=${scope.scope}` : ""}`, args: { ...scope, sort, sortDir } });
      }
      if (spec.search) shapes.push({ name: `search${"scope" in scope ? ` scope=${scope.scope}` : ""}`, args: { ...scope, search: "zephyr" } });
    }
    for (const filters of declaredPlan?.filters ?? []) shapes.push({ name: `filters ${JSON.stringify(filters)}`, args: {}, filters });

    for (const shape of shapes) {
      it(`${shape.name}: the page and its total, for anonymous callers, members and administrators`, async () => {
        for (const [who, caller] of Object.entries(callers)) {
          const args = { ...shape.args, ...(shape.args.scopeId === -1 ? { scopeId: groupId } : {}), limit: 25 };
          const statements = listStatements(spec, caller, args, undefined, shape.filters);
          const searching = "search" in args;
          for (const [part, statement] of [["page", statements.page(true).sql], ["total", Prisma.sql`SELECT (${statements.total})`]] as const) {
            const plan = await explainPlan(statement);
            const nodes = nodesOf(plan);
            const where = `${who}, ${part}: ${describePlan(nodes)}`;
            // Whether a hidden group's records are secluded from the caller (the group kind's `secluded`): asked
            // once per statement (an InitPlan) when the list is a group's, never per row; other scopes' lists
            // and administrators' never ask it.
            const groupsRead = (of: PlanNode[]) => of.filter((node) => node["Relation Name"] === "groups" && table !== "groups");
            if (shape.args.scope === "group") expect(groupsRead(perRowNodesOf(plan)), `${where}: groups read per row`).toEqual([]);
            else expect(groupsRead(nodes), `${where}: groups read`).toEqual([]);
            expect(nodes.filter((node) => node["Node Type"] === "Seq Scan" && [table, "list_count_days"].includes(node["Relation Name"] ?? "")), where).toEqual([]);
            // A plain list's total is read from list_counts; its publishing-window correction, if any, scans an index.
            if (part === "page" || searching) expect(nodes.some((node) => node["Relation Name"] === table), where).toBe(true);
            if (part === "total" && records.window && !searching && !shape.filters) {
              // A windowed list's total reads the day buckets of list_count_days and, from the table, only the
              // records whose window opens or closes later today, each at most twice (everyone's records, the
              // caller's own): not every record that waits (issue 6).
              const info = modelInfo(server.app.db.prisma, records.model);
              const col = (field: string) => Prisma.raw(`"${info.fields.get(field)!.column}"`);
              const { scope, scopeId } = args as { scope?: string; scopeId?: number };
              const inScope = spec.scoped ? Prisma.sql`${col("scope")} = ${scope} AND ${col("scopeId")} = ${scopeId}` : Prisma.sql`TRUE`;
              const laterToday = (field: string) =>
                Prisma.sql`(SELECT count(*)::int FROM ${Prisma.raw(`"${table}"`)} WHERE ${inScope} AND ${col(field)} > now() AT TIME ZONE 'UTC'
                              AND ${col(field)} < date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day')`;
              const [today] = await sqlClientOf(server.app.db.prisma).query<{ rows: number }>(
                Prisma.sql`SELECT ${laterToday(records.window.up)} + ${laterToday(records.window.down)} AS rows`,
              );
              expect(await rowsRead(statement), `${where}: rows read from ${table}`).toBeLessThanOrEqual(2 * today!.rows);
            }
            if (searching) {
              // The total counts the matches the trigram indexes find; the page may instead walk the sort's index.
              if (part === "total") expect(nodes.some((node) => node["Node Type"] === "Bitmap Index Scan" && /trgm/.test(node["Index Name"] ?? "")), where).toBe(true);
            } else {
              expect(nodes.filter((node) => /Sort/.test(node["Node Type"])), where).toEqual([]);
            }
          }
        }
      });
    }
  });
}

/**
 * ~`rows` plausible records for the plan test, from the records declaration and the model: mostly
 * published site records at the public level, some in a group, drafts, private and registered ones,
 * a few publishing windows ahead or closed; other columns vary by type. Areas whose models need more
 * (a required reference to another table) declare `contract.plan.seed`.
 */
function seedRows(db: Caller["db"], records: RecordsDeclaration, rows: number, context: { authors: number[]; groupId: number }): Prisma.Sql {
  const info = modelInfo(db, records.model);
  // Scalar fields that hold another record's id → that record's model.
  const references = new Map([...info.fields.values()].filter((field) => field.from).map((field) => [field.from!, field.type]));
  const values = new Map<string, string>();
  const levels = records.access?.levels ?? [];
  const level = (name: string) => levels.find((entry) => entry.name === name)?.value;
  for (const field of info.scalars) {
    if (field.name === "id") continue;
    const column = field.column;
    if (records.scoped && field.name === "scope") values.set(column, `CASE WHEN g % 10 < 8 THEN 'site' WHEN g % 10 = 8 THEN 'group' ELSE 'member' END`);
    else if (records.scoped && field.name === "scopeId") values.set(column, `CASE WHEN g % 10 < 8 THEN 0 WHEN g % 10 = 8 THEN ${context.groupId} ELSE 1 + g % 7 END`);
    else if (field.name === records.published.field) values.set(column, `CASE WHEN g % 10 < 9 THEN ${records.published.value} ELSE ${records.published.value === 0 ? 1 : 0} END`);
    else if (records.access && field.name === accessFieldOf(records))
      values.set(column, `CASE WHEN g % 25 < 20 THEN ${level("public")} WHEN g % 25 < 23 THEN ${level("registered") ?? level("public")} ELSE ${level("private") ?? level("public")} END`);
    else if (field.name === records.creator || references.get(field.name) === "User")
      values.set(column, `(ARRAY[${context.authors.join(",")}])[1 + g % ${context.authors.length}]`);
    else if (records.window && field.name === records.window.up)
      // 2 % open later, on days spread over the next 200 (one to four buckets a day ahead).
      values.set(column, `(now() AT TIME ZONE 'UTC') + CASE WHEN g % 50 = 0 THEN (1 + g / 50) * interval '1 day' ELSE -g * interval '1 hour' END`);
    else if (records.window && field.name === records.window.down)
      // 3 % have an end: half of them ahead, on days spread over the next 90, half behind.
      values.set(column, `CASE WHEN g % 30 = 0 THEN (now() AT TIME ZONE 'UTC') + (CASE WHEN g % 60 = 0 THEN 1 ELSE -1 END) * (1 + g / 60 % 90) * interval '1 day' END`);
    else if (references.has(field.name)) {
      if (field.isRequired) throw new Error(`${records.model}.${field.name} references another table: declare contract.plan.seed in its testing.ts`);
    } else if (field.isList) values.set(column, `'{}'`);
    // Texts of a few hundred characters, as titles plus content are: the planner weighs a table's size.
    else if (field.type === "String") values.set(column, `repeat(md5(g::text || '${field.name}'), 8)`);
    else if (field.type === "Int") values.set(column, `(g * 7919) % 1000`);
    else if (field.type === "DateTime") values.set(column, `(now() AT TIME ZONE 'UTC') - g * interval '7 minutes'`);
    else if (field.type === "Boolean") values.set(column, `g % 2 = 0`);
    else if (field.type === "Json") values.set(column, `'{}'`);
  }
  const columns = [...values.keys()].map((column) => `"${column}"`).join(", ");
  return Prisma.raw(`INSERT INTO "${info.table}" (${columns}) SELECT ${[...values.values()].join(", ")} FROM generate_series(1, ${rows}) g`);
}

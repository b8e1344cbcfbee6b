import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { startServer, type TestServer } from "../../test/server.js";
import { describePlan, explainNodes } from "../../test/plan.js";
import { sqlClientOf } from "../db/sql.js";
import { feedStatements } from "./service.js";
import { ACTIVITY_LIST } from "./area.js";
import { listStatements } from "../common/paging.js";
import type { Caller } from "../common/list-spec.js";
import { testing } from "./testing.js";

// The feed is no list of the spec (test/plans.test.ts derives those): its shape is checked here, over the
// same seed — the member's entries found through the recipients' (scope, scope_id, created, entry_id)
// index, the entries by primary key; no sequential scan of either table.

let server: TestServer;
let member: { id: number; username: string };
let outsider: { id: number; username: string };

beforeAll(async () => {
  server = await startServer();
  const cast = await server.cast("feedplan");
  member = cast.member;
  outsider = cast.bob; // sent next to nothing of the seed
  const db = server.app.db.prisma;
  const authors = [cast.alice.id, cast.bob.id, cast.member.id, cast.manager.id];
  await sqlClientOf(db).query(testing.contract!.plan!.seed!(10_000, { authors, groupId: cast.groupId }));
  await sqlClientOf(db).query(Prisma.sql`VACUUM ANALYZE activity`);
  await sqlClientOf(db).query(Prisma.sql`VACUUM ANALYZE activity_recipients`);
}, 120_000);
afterAll(() => server?.close());

describe("activityFeed: a member's feed and its total through indexes", () => {
  for (const start of [0, 50]) {
    it(`page from ${start} and the total read no table sequentially`, async () => {
      const caller = { db: server.app.db.prisma, viewer: { user: { id: member.id, username: member.username, isAdmin: false }, via: "token" as const } };
      const statements = feedStatements(caller, { limit: 25, start });
      for (const statement of [statements.page.sql, statements.total]) {
        const nodes = await explainNodes(sqlClientOf(server.app.db.prisma), statement);
        const scans = nodes.filter((node) => node["Node Type"] === "Seq Scan" && ["activity", "activity_recipients"].includes(node["Relation Name"] ?? ""));
        expect(scans, describePlan(nodes)).toEqual([]);
      }
    });
  }

  it("a page reads as many entries as it reaches, not the table, for a caller who was sent few of them", async () => {
    const caller = { db: server.app.db.prisma, viewer: { user: { id: outsider.id, username: outsider.username, isAdmin: false }, via: "token" as const } };
    const nodes = await explainNodes(sqlClientOf(server.app.db.prisma), feedStatements(caller, { limit: 25, start: 0 }).page.sql, { analyze: true });
    const read = nodes.filter((node) => ["activity", "activity_recipients"].includes(node["Relation Name"] ?? "")).reduce((sum, node) => sum + ((node["Actual Rows"] ?? 0) + Number((node as unknown as Record<string, unknown>)["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1), 0);
    expect(read, describePlan(nodes, (node) => ` rows ${node["Actual Rows"]} × ${node["Actual Loops"]}`)).toBeLessThan(200);
  });

  it("the site list's total reads no entry for anonymous callers and administrators (list_counts), and only the caller's channels for a member", async () => {
    const db = server.app.db.prisma;
    const read = async (viewer: Caller["viewer"]) => {
      const nodes = await explainNodes(sqlClientOf(db), Prisma.sql`SELECT (${listStatements(ACTIVITY_LIST, { db, viewer }, {}).total})`, { analyze: true });
      return {
        nodes,
        entries: nodes.filter((node) => node["Relation Name"] === "activity").reduce((sum, node) => sum + ((node["Actual Rows"] ?? 0) + Number((node as unknown as Record<string, unknown>)["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1), 0),
      };
    };
    for (const viewer of [{ user: null, via: "anonymous" as const }, { user: { id: outsider.id, username: outsider.username, isAdmin: true }, via: "token" as const }]) {
      const { nodes, entries } = await read(viewer);
      expect(entries, describePlan(nodes)).toBe(0);
    }
    // The member: at most one probe per entry sent to them or their group (10,000 rows seeded, far fewer sent to them).
    const { nodes, entries } = await read({ user: { id: member.id, username: member.username, isAdmin: false }, via: "token" });
    expect(entries, describePlan(nodes)).toBeLessThan(2_000);
  });
});

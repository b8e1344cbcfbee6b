// The counter triggers of every declared table (list_counts_track's arguments in the migrations) against
// the records declarations, on the database the suite runs on: the same comparison `npm run db:check`
// makes on a freshly migrated PGlite (scripts/check-migrations.ts).
import { describe, expect, it } from "vitest";
import { countTriggerDifferences } from "../src/common/count-triggers.js";
import { declaredRecords, type RecordsDeclaration } from "../src/common/records.js";
import { modelInfo } from "../src/common/model.js";
import { sqlClientOf } from "../src/db/sql.js";
import { Prisma } from "../src/generated/prisma/client.js";
import { oneServerForFile } from "./server.js";

const server = oneServerForFile();

describe("counter triggers", () => {
  it("are installed on every declared table with the columns its declaration names", async () => {
    const { app } = await server();
    const sql = sqlClientOf(app.db.prisma);
    const declared = declaredRecords();
    // Every area's declarations, forum, activity and plugins among them.
    expect(declared.map((declaration) => declaration.model)).toEqual(
      expect.arrayContaining(["WikiPage", "BlogEntry", "Citation", "Group", "Announcement", "ForumPost", "ForumSection", "ForumCategory", "ActivityEntry", "PluginRecord"]),
    );
    const found = await countTriggerDifferences((text) => sql.query(Prisma.raw(text)), app.db.prisma);
    expect(found).toEqual({ differences: [], statements: [] });
  });

  it("report a declaration that disagrees, with the statement that brings the table in line", async () => {
    const { app } = await server();
    const sql = sqlClientOf(app.db.prisma);
    const query = (text: string) => sql.query(Prisma.raw(text));
    const wiki = declaredRecords().find((declaration) => declaration.model === "WikiPage")!;
    // The wiki's pages as if they had gained a publishing window.
    const changed: RecordsDeclaration = { ...wiki, window: { up: "created", down: "modified" } };
    const found = await countTriggerDifferences(query, app.db.prisma, [changed]);
    expect(found.differences).toEqual([
      "WikiPage (wiki_pages): the declaration names (state, 1, access, created_by, scope, scope_id, created, modified); the database has wiki_pages_list_counts_delete, wiki_pages_list_counts_insert, wiki_pages_list_counts_update with (state, 1, access, created_by, scope, scope_id, , )",
    ]);
    expect(found.statements).toEqual(["SELECT list_counts_track('wiki_pages', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', 'created', 'modified');"]);
    // The statement is what a migration would run: afterwards the table agrees with the changed declaration.
    for (const statement of found.statements) await query(statement);
    expect(await countTriggerDifferences(query, app.db.prisma, [changed])).toEqual({ differences: [], statements: [] });
    expect((await countTriggerDifferences(query, app.db.prisma, [wiki])).differences).toHaveLength(1);
    expect(modelInfo(app.db.prisma, "WikiPage").table).toBe("wiki_pages");
  });
});

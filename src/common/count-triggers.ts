import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import type { SqlClient } from "../db/sql.js";
import { type RecordsDeclaration, accessFieldOf, declaredRecords } from "./records.js";
import { modelInfo } from "./model.js";

// ---------------------------------------------------------------------------------------------------
// Counts: what the list_counts triggers keep for a table, in list_counts and, for windowed records,
// list_count_days (see the latest migration that defines list_counts_track).

/**
 * Removes a deleted scope's count rows (list_counts, list_count_days): its records are gone with it, and the
 * rows the triggers brought down to zero would otherwise stay for ever (issue 32). Called in the deleting
 * transaction after the records (a group's `writes.removes`, src/groups/area.ts); a write racing the deletion is refused by its scope check
 * (recordScopeExistsSql), so no count comes back. The scope's list_versions rows stay: a cached total is
 * keyed by them, and a scope's id is never given again.
 */
export async function forgetScopeCounts(sql: SqlClient, scope: { scope: string; scopeId: number }): Promise<void> {
  await sql.query(Prisma.sql`DELETE FROM list_counts WHERE scope = ${scope.scope} AND scope_id = ${scope.scopeId}`);
  await sql.query(Prisma.sql`DELETE FROM list_count_days WHERE scope = ${scope.scope} AND scope_id = ${scope.scopeId}`);
}

/**
 * Where the counter triggers of the declared tables disagree with their declarations, in a database
 * `query` reaches: one line per table that differs, and the statements a migration needs to bring them
 * in line (`list_counts_track` replaces a table's triggers). Migrations stay as written; `npm run
 * db:check` fails on a difference, and `npm run db:migration` writes the statements.
 */
export async function countTriggerDifferences(
  query: (sql: string) => Promise<Record<string, unknown>[]>,
  prisma: PrismaClient,
  declared: readonly RecordsDeclaration[] = declaredRecords(),
): Promise<{ differences: string[]; statements: string[] }> {
  const rows = await query(
    `SELECT c.relname AS "table", t.tgname AS name, encode(t.tgargs, 'escape') AS args FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = 'public'::regnamespace AND t.tgname LIKE '%\\_list\\_counts\\_%' ORDER BY 1, 2`,
  );
  const differences: string[] = [];
  const statements: string[] = [];
  for (const declaration of declared) {
    if (declaration.counted === false) continue;
    const table = modelInfo(prisma, declaration.model).table;
    const expected = countTriggerArguments(prisma, declaration);
    const found = rows.filter((row) => row.table === table).map((row) => ({ name: String(row.name), args: String(row.args).split("\\000").slice(0, -1) }));
    const names = found.map((trigger) => trigger.name);
    const wrong = found.filter((trigger) => JSON.stringify(trigger.args) !== JSON.stringify(expected));
    const wanted = ["delete", "insert", "update"].map((event) => `${table}_list_counts_${event}`);
    if (JSON.stringify(names) === JSON.stringify(wanted) && !wrong.length) continue;
    const now = found.length ? `${names.join(", ")} with (${[...new Set(found.map((trigger) => trigger.args.join(", ")))].join(") / (")})` : "no counter triggers";
    differences.push(`${declaration.model} (${table}): the declaration names (${expected.join(", ")}); the database has ${now}`);
    statements.push(`SELECT list_counts_track(${[table, ...expected].map((value, index) => (index === 2 ? value : `'${value}'`)).join(", ")});`);
  }
  return { differences, statements };
}

/** The arguments `list_counts_track` must have been called with for this table. */
export function countTriggerArguments(prisma: PrismaClient, declaration: RecordsDeclaration): string[] {
  const info = modelInfo(prisma, declaration.model);
  const columnOf = (field: string | undefined) => (field ? info.fields.get(field)!.column : "");
  return [
    columnOf(declaration.published.field),
    String(declaration.published.value),
    declaration.access ? columnOf(accessFieldOf(declaration)) : "",
    columnOf(declaration.creator),
    declaration.scoped ? columnOf("scope") : "",
    declaration.scoped ? columnOf("scopeId") : "",
    declaration.window ? columnOf(declaration.window.up) : "",
    declaration.window ? columnOf(declaration.window.down) : "",
  ];
}

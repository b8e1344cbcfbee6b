// Fails when prisma/schema/ has changes that no migration in prisma/migrations carries, or when a table's
// counter triggers (list_counts_track's arguments) disagree with its records declaration.
// Prisma's own check (--from-migrations) needs a shadow database, which PGlite cannot provide, so two
// scratch PGlite databases are built, one from the migrations (as the server applies them) and one
// from the schema, and their catalogs are compared.
import { execFileSync } from "node:child_process";
import type { PGlite } from "@electric-sql/pglite";
import { applyMigrations } from "../src/db/migrate.js";
import { openPGlite, pgliteRunner } from "../src/db/database.js";
import { countTriggerDifferences } from "./count-triggers.js";

const CATALOG = [
  `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY 1, 2`,
  `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`,
  // CHECK constraints (contype 'c') cannot be written in the Prisma schema; migrations alone own them.
  `SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
     WHERE connamespace = 'public'::regnamespace AND conrelid <> '"_prisma_migrations"'::regclass AND contype <> 'c' ORDER BY 1`,
  `SELECT t.typname, e.enumlabel FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid ORDER BY 1, e.enumsortorder`,
];

async function catalog(db: PGlite): Promise<string[]> {
  const out: string[] = [];
  for (const sql of CATALOG) for (const row of (await db.query(sql)).rows) out.push(JSON.stringify(row));
  return out;
}

const fromMigrations = await openPGlite();
await applyMigrations(pgliteRunner(fromMigrations));

const script = execFileSync("npx", ["prisma", "migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema", "--script"], {
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
  // The CLI opens the configured database even for a diff from empty; a throw-away one lets it exit.
  env: { ...process.env, DATABASE_URL: "", PRISMA_SCRATCH_DB: "memory" },
});
const fromSchema = await openPGlite();
await fromSchema.exec(`CREATE TABLE "_prisma_migrations" (id int);\n${script}`);

const [expected, actual] = [await catalog(fromSchema), await catalog(fromMigrations)];
const missing = expected.filter((line) => !actual.includes(line));
const extra = actual.filter((line) => !expected.includes(line));
if (missing.length || extra.length) {
  console.error("prisma/schema/ and prisma/migrations disagree; run npm run db:migration -- NAME (docs/adding-an-area.md).");
  for (const line of missing) console.error(`  schema has:     ${line}`);
  for (const line of extra) console.error(`  migrations have: ${line}`);
  process.exit(1);
}
console.log(`migrations match prisma/schema/ (${expected.length} catalog entries)`);
const triggers = await countTriggerDifferences(fromMigrations);
await Promise.all([fromMigrations.close(), fromSchema.close()]);
if (triggers.differences.length) {
  console.error("the counter triggers the migrations install disagree with the records declarations; run npm run db:migration -- NAME, which writes:");
  for (const statement of triggers.statements) console.error(`  ${statement}`);
  for (const line of triggers.differences) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`counter triggers match the records declarations (${triggers.checked} tables)`);

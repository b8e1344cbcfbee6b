// npm run db:migration -- <name>: writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL
// that takes the committed schema (git HEAD) to the working prisma/schema/ folder, and the
// `list_counts_track` calls that bring the counter triggers in line with the records declarations
// (src/common/count-triggers.ts; the migrations so far, applied to a scratch PGlite, are what they are compared
// with). Prisma's own `migrate dev` needs a shadow database, which PGlite cannot provide.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyMigrations } from "../src/db/migrate.js";
import { openPGlite, pgliteRunner } from "../src/db/database.js";
import { countTriggerDifferences } from "./count-triggers.js";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migration -- <name in snake_case>");
  process.exit(1);
}
// The committed schema folder, file by file, in a scratch folder.
const before = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-schema-"));
const committed = execFileSync("git", ["ls-tree", "--name-only", "HEAD", "prisma/schema/"], { encoding: "utf8" }).split("\n").filter(Boolean);
for (const file of committed) fs.writeFileSync(path.join(before, path.basename(file)), execFileSync("git", ["show", `HEAD:${file}`], { encoding: "utf8" }));
const sql = execFileSync(
  "npx",
  ["prisma", "migrate", "diff", "--from-schema-datamodel", before, "--to-schema-datamodel", "prisma/schema", "--script"],
  { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DATABASE_URL: "", PRISMA_SCRATCH_DB: "memory" } },
);
const schemaChanged = Boolean(sql.trim()) && !/^-- This is an empty migration/.test(sql.trim());
const migrated = await openPGlite();
await applyMigrations(pgliteRunner(migrated));
const triggers = await countTriggerDifferences(migrated);
await migrated.close();
if (!schemaChanged && !triggers.statements.length) {
  console.log("prisma/schema/ has no changes since HEAD and the counter triggers match the records declarations; no migration written");
  process.exit(0);
}
const counters = triggers.statements.length
  ? `\n-- The counter triggers as the records declarations name them (src/common/count-triggers.ts, countTriggerArguments):\n${triggers.differences.map((line) => `-- ${line}\n`).join("")}${triggers.statements.join("\n")}\n`
  : "";
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = path.join("prisma", "migrations", `${stamp}_${name}`);
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, "migration.sql"), `${schemaChanged ? sql : ""}${counters}`);
console.log(`wrote ${dir}/migration.sql; review it, then npm run db:check`);

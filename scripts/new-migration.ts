// npm run db:migration -- <name>: writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL
// that takes the committed schema (git HEAD) to the working prisma/schema.prisma. Prisma's own
// `migrate dev` needs a shadow database, which PGlite cannot provide.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migration -- <name in snake_case>");
  process.exit(1);
}
const before = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-schema-")), "schema.prisma");
fs.writeFileSync(before, execFileSync("git", ["show", "HEAD:prisma/schema.prisma"], { encoding: "utf8" }));
const sql = execFileSync(
  "npx",
  ["prisma", "migrate", "diff", "--from-schema-datamodel", before, "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
  { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DATABASE_URL: "", PRISMA_SCRATCH_DB: "memory" } },
);
if (!sql.trim() || /^-- This is an empty migration/.test(sql.trim())) {
  console.log("prisma/schema.prisma has no changes since HEAD; no migration written");
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = path.join("prisma", "migrations", `${stamp}_${name}`);
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, "migration.sql"), sql);
console.log(`wrote ${dir}/migration.sql; review it, then npm run db:check`);

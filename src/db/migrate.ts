import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface SqlRunner {
  exec(sql: string): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

const migrationsDir = fileURLToPath(new URL("../../prisma/migrations", import.meta.url));

/** Names and contents of every migration, hashed: changes whenever what a new database would run changes. */
export function migrationsFingerprint(): string {
  const hash = crypto.createHash("sha256");
  for (const name of fs.readdirSync(migrationsDir).sort()) {
    const file = path.join(migrationsDir, name, "migration.sql");
    if (!fs.existsSync(file)) continue;
    hash.update(name).update("\0").update(fs.readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * Applies the SQL migrations in prisma/migrations that the database has not seen yet.
 *
 * The server migrates itself on start without spawning the Prisma CLI (which cannot reach an
 * in-memory PGlite database). Rows go into Prisma's own `_prisma_migrations` table with the same
 * checksums, so `prisma migrate status` / `deploy` agree with what the server did. An advisory lock
 * keeps two servers starting against one PostgreSQL from migrating at the same time.
 */
export async function applyMigrations(db: SqlRunner, log: (line: string) => void = () => {}): Promise<string[]> {
  const names = fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  await db.exec(`SELECT pg_advisory_lock(72707369)`);
  try {
    await db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const done = new Set(
      (await db.query(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)).map(
        (row) => String(row.migration_name),
      ),
    );
    const applied: string[] = [];
    for (const name of names) {
      if (done.has(name)) continue;
      const sql = fs.readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8");
      const checksum = crypto.createHash("sha256").update(sql).digest("hex");
      log(`applying migration ${name}`);
      // One transaction per migration, its bookkeeping row included: a failure or a crash leaves the
      // schema and _prisma_migrations as they were, so the next start simply tries again.
      if (!/^\w+$/.test(name)) throw new Error(`migration folder name "${name}" must be letters, digits and _`);
      await db
        .exec(
          // No statement timeout inside it: the pool's (30 s, for requests) would fail a migration that rewrites
          // a large table (adding activity's sent_to_site to 10^6 entries took longer), at every start.
          `BEGIN;\nSET LOCAL statement_timeout = 0;\n${sql}\n;INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) ` +
            `VALUES ('${crypto.randomUUID()}', '${checksum}', now(), '${name}', 1);\nCOMMIT;`,
        )
        .catch(async (error: unknown) => {
          await db.exec("ROLLBACK").catch(() => {});
          throw new Error(`migration ${name} failed: ${(error as Error).message}`);
        });
      applied.push(name);
    }
    return applied;
  } finally {
    await db.exec(`SELECT pg_advisory_unlock(72707369)`);
  }
}

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A database migrated once per test run (test/global-setup.ts), copied for each test server instead of
 * migrating an empty one every time (35 migrations: about a second of CPU per server on PGlite).
 *
 * - PGlite: the migrated data directory dumped to a file (PGlite's dumpDataDir), loaded by each in-memory
 *   database (`initialDump`).
 * - PostgreSQL: a database `hubgraph_template_<fingerprint>` that scratch databases are created from
 *   (`CREATE DATABASE … TEMPLATE`).
 *
 * Both are named by a fingerprint of prisma/migrations, so a changed, added or removed migration makes a
 * new one; an unchanged tree reuses the last run's. Tests that are about migrating itself
 * (test/migrations.test.ts, process tests of a first start) ask for an empty database instead.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const migrationsDir = path.join(root, "prisma", "migrations");

/** Names and contents of every migration, hashed: changes whenever what a database would run changes. */
export function migrationsFingerprint(): string {
  const hash = crypto.createHash("sha256");
  for (const name of fs.readdirSync(migrationsDir).sort()) {
    const file = path.join(migrationsDir, name, "migration.sql");
    if (!fs.existsSync(file)) continue;
    hash.update(name).update("\0").update(fs.readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** Where global setup keeps the PGlite dump: beside the installed packages, kept across runs. */
export const pgliteDumpPath = (fingerprint: string) => path.join(root, "node_modules", ".cache", "hubgraph-test", `pglite-migrated-${fingerprint}.tar`);

export const postgresTemplateName = (fingerprint: string) => `hubgraph_template_${fingerprint}`;

/** Set by global setup for the test processes (they inherit its environment). */
export const TEMPLATE_ENV = { pgliteDump: "HUBGRAPH_TEST_PGLITE_DUMP", postgresTemplate: "HUBGRAPH_TEST_POSTGRES_TEMPLATE" } as const;

let dump: Blob | undefined;

/** The migrated PGlite dump of this run, read once per test process; undefined outside vitest's global setup. */
export function migratedPgliteDump(): Blob | undefined {
  const file = process.env[TEMPLATE_ENV.pgliteDump];
  if (!file) return undefined;
  dump ??= new Blob([fs.readFileSync(file)]);
  return dump;
}

/** The migrated PostgreSQL template database of this run, if global setup made one. */
export const migratedPostgresTemplate = (): string | undefined => process.env[TEMPLATE_ENV.postgresTemplate] || undefined;

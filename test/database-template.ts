import fs from "node:fs";
import { DumpBytes } from "../src/db/embedded-template.js";

/**
 * A database migrated once per test run (test/global-setup.ts), copied for each test server instead of
 * migrating an empty one every time (35 migrations: about a second of CPU per server on PGlite).
 *
 * - PGlite: the template a new DATA_DIR's database is copied from (src/db/embedded-template.ts: the migrated
 *   data directory dumped to a file in CACHE_DIR), loaded by each in-memory database (`initialDump`) too.
 * - PostgreSQL: a database `hubgraph_template_<fingerprint>` that scratch databases are created from
 *   (`CREATE DATABASE … TEMPLATE`).
 *
 * Both are named by a fingerprint of prisma/migrations, so a changed, added or removed migration makes a
 * new one; an unchanged tree reuses the last run's. Tests that are about migrating itself
 * (test/migrations.test.ts, process tests of a first start) ask for an empty database instead.
 */

/** The migrations' fingerprint names the PostgreSQL template; the PGlite one is the product's own template. */
export { migrationsFingerprint } from "../src/db/migrate.js";

export const postgresTemplateName = (fingerprint: string) => `hubgraph_template_${fingerprint}`;

/** Set by global setup for the test processes (they inherit its environment). */
export const TEMPLATE_ENV = { pgliteDump: "HUBGRAPH_TEST_PGLITE_DUMP", postgresTemplate: "HUBGRAPH_TEST_POSTGRES_TEMPLATE" } as const;

let dump: Blob | undefined;

/** The migrated PGlite dump of this run, read once per test process; undefined outside vitest's global setup. */
export function migratedPgliteDump(): Blob | undefined {
  const file = process.env[TEMPLATE_ENV.pgliteDump];
  if (!file) return undefined;
  dump ??= new DumpBytes(fs.readFileSync(file));
  return dump;
}

/** The migrated PostgreSQL template database of this run, if global setup made one. */
export const migratedPostgresTemplate = (): string | undefined => process.env[TEMPLATE_ENV.postgresTemplate] || undefined;

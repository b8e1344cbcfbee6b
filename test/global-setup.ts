import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { applyMigrations } from "../src/db/migrate.js";
import { migrationsFingerprint, postgresTemplateName, TEMPLATE_ENV } from "./database-template.js";
import { loadConfig } from "../src/config.js";
import { DEFAULT_CACHE_DIR, keepTemplate, templatePath } from "../src/db/embedded-template.js";

/**
 * Runs once per `vitest run`, before any test process starts: migrates one database of the kind under
 * test and tells the test processes (through their inherited environment) where it is, so each test
 * server copies it instead of applying every migration again (test/database-template.ts).
 */
export default async function setup() {
  // The process tests run the server and the CLI as `npm start` does, from dist/ (test/built.ts): built
  // here when a source changed since the last build (esbuild, under a second).
  execFileSync(process.execPath, ["--input-type=module", "-e", "const { isBuildStale } = await import('./scripts/build-state.mjs'); if (isBuildStale()) await import('./scripts/build.mjs');"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    stdio: "inherit",
  });
  const fingerprint = migrationsFingerprint();
  process.env[TEMPLATE_ENV.pgliteDump] = await ensurePgliteTemplate();
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) process.env[TEMPLATE_ENV.postgresTemplate] = await ensurePostgresTemplate(databaseUrl, fingerprint);
}

/**
 * The template a new embedded database is copied from (src/db/embedded-template.ts), made unless an
 * earlier run or a server of this install made it: every in-memory test database is loaded from it.
 */
async function ensurePgliteTemplate(): Promise<string> {
  const cacheDir = loadConfig().cacheDir ?? DEFAULT_CACHE_DIR;
  if (fs.existsSync(templatePath(cacheDir))) return templatePath(cacheDir);
  const { openPGlite, pgliteRunner } = await import("../src/db/database.js");
  const pglite = await openPGlite();
  try {
    await applyMigrations(pgliteRunner(pglite));
    return await keepTemplate(pglite, cacheDir);
  } finally {
    await pglite.close();
  }
}

/**
 * The template database for these migrations on the server DATABASE_URL names. Built under a name of its
 * own and renamed when complete, so a run killed meanwhile leaves no half-migrated template; two runs
 * building at once both finish, and the second rename finds the name taken and drops its copy.
 */
async function ensurePostgresTemplate(adminUrl: string, fingerprint: string): Promise<string> {
  const { default: pg } = await import("pg");
  const name = postgresTemplateName(fingerprint);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount) return name;
    const building = `hubgraph_building_${crypto.randomBytes(6).toString("hex")}`;
    await admin.query(`CREATE DATABASE ${building}`);
    try {
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        await applyMigrations({ exec: async (sql) => void (await client.query(sql)), query: async (sql, params) => (await client.query(sql, params)).rows });
      } finally {
        await client.end();
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } catch (error) {
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      if ((error as { code?: string }).code !== "42P04") throw error; // 42P04: another run named its template first
    }
    // Templates of other migrations than these are left to the runs that use them (a branch's run may be
    // going on beside this one); they are small, and nothing drops them yet (DROP DATABASE by hand).
    return name;
  } finally {
    await admin.end();
  }
}

import crypto from "node:crypto";
import { migratedPostgresTemplate } from "./database-template.js";

export interface ScratchOptions {
  /** Leftovers are told apart by it (the benchmark uses its own). */
  prefix?: string;
  /**
   * Start as a copy of the run's migrated template (test/database-template.ts) rather than empty: the
   * default inside the test suite, where global setup made one. Tests of migrating itself say false.
   */
  migrated?: boolean;
}

/** A fresh database on the PostgreSQL server `adminUrl` points at, for one test file or benchmark run. */
export async function createScratchDatabase(adminUrl: string, { prefix = "hubgraph_test_", migrated = true }: ScratchOptions = {}) {
  const { default: pg } = await import("pg");
  const name = `${prefix}${crypto.randomBytes(6).toString("hex")}`;
  const template = migrated ? migratedPostgresTemplate() : undefined;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

import crypto from "node:crypto";

/**
 * A fresh database on the PostgreSQL server `adminUrl` points at, for one test file or benchmark run.
 * `prefix` tells leftovers apart (the benchmark uses its own).
 */
export async function createScratchDatabase(adminUrl: string, prefix = "hubgraph_test_") {
  const { default: pg } = await import("pg");
  const name = `${prefix}${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
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

// The first-run administrator when several servers start at once on one PostgreSQL database: one of them
// creates it, the others find it (src/auth/first-run.ts, an advisory lock). PGlite has one server per
// DATA_DIR by construction; test/process.test.ts covers the first run there.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { createApp, type App } from "../src/app.js";
import { silentLogger } from "../src/observability/logger.js";
import { createScratchDatabase } from "./scratch-database.js";
import { describeOnPostgres } from "./postgres-only.js";

const base = loadConfig();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describeOnPostgres("the first-run administrator on PostgreSQL", "PGlite has one server per data directory", () => {
  it("is created once when four servers start at the same moment", { timeout: 120_000 }, async () => {
    const scratch = await createScratchDatabase(base.databaseUrl!);
    const apps: App[] = [];
    try {
      // Migrated first: the race under test is the administrator's, not the migrations'.
      apps.push(await createApp({ config: { ...base, databaseUrl: scratch.url, admin: undefined }, logger: silentLogger(), firstRun: false }));
      const instances = Array.from({ length: 4 }, () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-first-run-"));
        dirs.push(dataDir);
        return dataDir;
      });
      apps.push(...(await Promise.all(instances.map((dataDir) => createApp({ config: { ...base, databaseUrl: scratch.url, dataDir, admin: undefined }, logger: silentLogger(), firstRun: true })))));
      const admins = await apps[0]!.db.prisma.user.findMany({ where: { isAdmin: true } });
      expect(admins.map((admin) => admin.username)).toEqual(["admin"]);
      expect(instances.filter((dataDir) => fs.existsSync(path.join(dataDir, "admin-password")))).toHaveLength(1);
    } finally {
      for (const app of apps) await app.close();
      await scratch.drop();
    }
  });
});

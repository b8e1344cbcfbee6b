// Prisma CLI configuration. The JS engine with a driver adapter keeps every CLI command offline
// (no native schema engine download). DATABASE_URL picks PostgreSQL; otherwise the embedded PGlite
// database in DATA_DIR is used, the same choice the server makes at start-up.
import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPGlite } from "pglite-prisma-adapter";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema"),
  migrations: { path: path.join("prisma", "migrations") },
  async adapter() {
    const url = process.env.DATABASE_URL;
    if (url && /^postgres(ql)?:\/\//.test(url)) return new PrismaPg({ connectionString: url });
    // Commands that need no stored data (e.g. migrate diff --from-empty) can use a throw-away database.
    if (process.env.PRISMA_SCRATCH_DB === "memory") return new PrismaPGlite(new PGlite({ extensions: { pg_trgm } })) as unknown as PrismaPg;
    const dir = path.resolve(process.env.DATA_DIR ?? "data", "pglite");
    fs.mkdirSync(dir, { recursive: true });
    // The adapter is typed against an older @prisma/driver-adapter-utils; the protocol is the same.
    return new PrismaPGlite(new PGlite({ dataDir: dir, extensions: { pg_trgm } })) as unknown as PrismaPg;
  },
});

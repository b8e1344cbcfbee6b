import { expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { PLAN_CACHE_MODE, openDatabase } from "./database.js";
import { sqlClientOf } from "./sql.js";
import { createScratchDatabase } from "../../test/scratch-database.js";
import { describeOnPostgres } from "../../test/postgres-only.js";

describeOnPostgres("the PostgreSQL pool", "PGlite has no connection pool", () => {
  it("plans prepared statements for their parameters on every connection, also when DATABASE_URL has options of its own", async () => {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL!);
    try {
      const url = new URL(scratch.url);
      url.searchParams.set("options", "-c application_name=from-the-url");
      const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 3 });
      try {
        const sql = sqlClientOf(db.prisma);
        const settings = Prisma.sql`SELECT current_setting('plan_cache_mode') AS mode, current_setting('application_name') AS name, pg_backend_pid() AS pid`;
        // Three at once: three connections of the pool.
        const answers = (await Promise.all([1, 2, 3].map(() => sql.query<{ mode: string; name: string; pid: number }>(settings)))).flat();
        expect(new Set(answers.map((answer) => answer.pid)).size).toBe(3);
        for (const answer of answers) expect(answer).toMatchObject({ mode: PLAN_CACHE_MODE, name: "from-the-url" });
      } finally {
        await db.close();
      }
    } finally {
      await scratch.drop();
    }
  });
});

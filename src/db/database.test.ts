import pg from "pg";
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

  it("hears a connection the server ends just as the pool hands it to the next waiter (no uncaught 'error' ends the process)", async () => {
    // The race seen in CI: a statement's answer and the server's FATAL (pg_terminate_backend, a failover)
    // arrive in one read. pg-pool releases the connection inside the answer's callback and hands it to the
    // next waiter at once, with no 'error' listener until that waiter's promise resumes — and the parser
    // goes on to the FATAL first. The event loop is held busy here so that both land in one read.
    const scratch = await createScratchDatabase(process.env.DATABASE_URL!);
    const uncaught: unknown[] = [];
    const listeners = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", (error) => void uncaught.push(error));
    const db = await openDatabase({ databaseUrl: scratch.url, poolSize: 1 });
    const terminator = new pg.Client({ connectionString: scratch.url });
    try {
      await terminator.connect();
      const sql = sqlClientOf(db.prisma);
      for (let round = 0; round < 3; round++) {
        const [{ pid }] = (await sql.query<{ pid: number }>(Prisma.sql`SELECT pg_backend_pid() AS pid`)) as [{ pid: number }];
        const terminated = terminator.query("SELECT pg_sleep(0.06), pg_terminate_backend($1)", [pid]);
        const first = sql.query(Prisma.sql`SELECT pg_sleep(0.02)`).catch((error: Error) => error);
        const waiter = sql.transaction((tx) => tx.query(Prisma.sql`SELECT 1`)).catch((error: Error) => error);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const until = Date.now() + 150; // the answer (at 20 ms) and the FATAL (at 60 ms) wait in the socket
        while (Date.now() < until);
        await Promise.all([terminated, first, waiter]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(uncaught).toEqual([]);
      // The pool goes on with a new connection.
      expect(await sql.query(Prisma.sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    } finally {
      process.removeAllListeners("uncaughtException");
      for (const listener of listeners) process.on("uncaughtException", listener);
      await terminator.end();
      await db.close();
      await scratch.drop();
    }
  });
});

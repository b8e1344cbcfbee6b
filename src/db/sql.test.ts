import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { MAX_PREPARED, openDatabase, type Database } from "./database.js";
import { createScratchDatabase } from "../../test/scratch-database.js";
import { migratedPgliteDump } from "../../test/database-template.js";
import { decodeTimestamp, sqlClientOf, type SqlClient } from "./sql.js";

// The texts come from the database the suite runs on (PGlite, or DATABASE_URL's PostgreSQL), as the list
// kit reads them: columns and row_to_json, every length of fraction PostgreSQL writes.
let db: Database;
let drop = async () => {};
beforeAll(async () => {
  let databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    const scratch = await createScratchDatabase(databaseUrl);
    databaseUrl = scratch.url;
    drop = scratch.drop;
  }
  db = await openDatabase({ databaseUrl, poolSize: 2, initialDump: migratedPgliteDump() });
});
afterAll(async () => {
  await db?.close();
  await drop();
});

describe("decodeTimestamp", () => {
  it("reads every timestamp(3) PostgreSQL writes as the moment it is, and writes it back as Date does", async () => {
    const rows = await sqlClientOf(db.prisma).query<{ column: string; json: { at: string }; iso: string }>(Prisma.sql`
      SELECT at::text AS "column", json_build_object('at', at) AS "json", to_char(at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "iso"
      FROM (VALUES ('2024-05-01 10:00:00'::timestamp(3)), ('2024-05-01 10:00:00.1'), ('2024-05-01 10:00:00.12'), ('2024-05-01 10:00:00.123'),
                   ('2024-05-01 10:00:00.050'), ('2024-05-01 10:00:00.007'), ('2024-02-29 23:59:59.999'), ('0001-01-01 00:00:00'),
                   ('0099-12-31 12:00:00.5'), ('1970-01-01 00:00:00'), ('9999-12-31 23:59:59.999')) AS moments(at)`);
    expect(rows).toHaveLength(11);
    for (const { column, json, iso } of rows) {
      for (const text of [column, json.at]) {
        const date = decodeTimestamp(text);
        expect(date).toBeInstanceOf(Date);
        expect(date.getTime(), text).toBe(Date.parse(iso));
        expect(date.toISOString(), text).toBe(iso);
        expect(JSON.stringify({ date }), text).toBe(JSON.stringify({ date: iso }));
      }
    }
  });

  it("reads a timestamp with a zone (timestamptz) at its offset", () => {
    for (const [text, iso] of [
      ["2024-05-01 10:00:00+02", "2024-05-01T08:00:00.000Z"],
      ["2024-05-01 10:00:00.5-03:30", "2024-05-01T13:30:00.500Z"],
      ["2024-05-01 10:00:00.123+00", "2024-05-01T10:00:00.123Z"],
    ]) {
      expect(decodeTimestamp(text!).toISOString(), text).toBe(iso);
      expect(JSON.stringify(decodeTimestamp(text!)), text).toBe(JSON.stringify(iso));
    }
  });

  it("formats a date changed after it was read as the changed moment", () => {
    const date = decodeTimestamp("2024-05-01 10:00:00.12");
    date.setUTCHours(11);
    expect(date.toISOString()).toBe("2024-05-01T11:00:00.120Z");
    expect(JSON.stringify(date)).toBe('"2024-05-01T11:00:00.120Z"');
    date.setTime(NaN);
    expect(JSON.stringify(date)).toBe("null");
  });
});

// Statements are prepared once and then run by name, on PostgreSQL (the pool) and on PGlite
// (pglite-statements.ts): what a statement answers must not depend on whether it ran before.
describe("a SqlClient statement, run again and again", () => {
  it("answers every kind of value the same on its first run and its later ones, with null and arrays", async () => {
    const sql = sqlClientOf(db.prisma);
    const statement = (id: number, tags: string[] | null, payload: object, at: Date, flag: boolean) =>
      Prisma.sql`SELECT ${id}::int AS id, ${tags}::text[] AS tags, ${JSON.stringify(payload)}::jsonb AS payload, ${at}::timestamptz AS at, ${flag}::boolean AS flag, ${id}::bigint * 2 AS twice`;
    for (let run = 0; run < 4; run += 1) {
      const at = new Date(Date.UTC(2024, 4, 1, 10, 0, run));
      const [row] = await sql.query<{ id: number; tags: string[] | null; payload: unknown; at: string; flag: boolean; twice: unknown }>(
        statement(run, run % 2 ? null : ["a", `b${run}`], { run, nested: [run] }, at, run % 2 === 0),
      );
      expect(row).toMatchObject({ id: run, tags: run % 2 ? null : ["a", `b${run}`], payload: { run, nested: [run] }, flag: run % 2 === 0 });
      expect(decodeTimestamp(row!.at).toISOString()).toBe(at.toISOString());
      expect(String(row!.twice)).toBe(String(run * 2));
    }
  });

  it("leaves the client usable after a statement fails, inside a transaction and out, and a rollback undoes the transaction's writes", async () => {
    const sql = sqlClientOf(db.prisma);
    await sql.query(Prisma.sql`CREATE TABLE IF NOT EXISTS sql_client_runs (id int PRIMARY KEY)`);
    const insert = (id: number) => Prisma.sql`INSERT INTO sql_client_runs (id) VALUES (${id}) RETURNING id`;
    expect(await sql.query(insert(1))).toEqual([{ id: 1 }]);
    await expect(sql.query(insert(1))).rejects.toMatchObject({ code: "23505" });
    await expect(sql.query(Prisma.sql`SELECT no_such_column FROM sql_client_runs`)).rejects.toMatchObject({ code: "42703" });
    await expect(
      sql.transaction(async (tx) => {
        expect(await tx.query(insert(2))).toEqual([{ id: 2 }]);
        expect(await tx.query(Prisma.sql`SELECT count(*)::int AS n FROM sql_client_runs`)).toEqual([{ n: 2 }]);
        await tx.query(insert(1));
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await sql.query(Prisma.sql`SELECT id FROM sql_client_runs ORDER BY id`)).toEqual([{ id: 1 }]);
    expect(await sql.transaction((tx) => tx.query(insert(3)))).toEqual([{ id: 3 }]);
    expect(await sql.query(Prisma.sql`SELECT id FROM sql_client_runs ORDER BY id`)).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it("runs texts past the bound of prepared names unprepared, inside a transaction and out", async () => {
    const sql = sqlClientOf(db.prisma);
    for (let text = 0; text <= MAX_PREPARED; text += 1) await sql.query(Prisma.sql`SELECT ${Prisma.raw(String(text))}::int AS n`);
    // Seen hanging: past the bound, PGlite's own query waited for the transaction it was run in.
    expect(await sql.transaction((tx) => tx.query(Prisma.sql`SELECT ${"inside"}::text AS said`))).toEqual([{ said: "inside" }]);
    expect(await sql.query(Prisma.sql`SELECT ${"outside"}::text AS said`)).toEqual([{ said: "outside" }]);
  });

  it("refuses a statement sent after its transaction ended", async () => {
    const sql = sqlClientOf(db.prisma);
    let kept: SqlClient | undefined;
    await sql.transaction(async (tx) => {
      kept = tx;
      await tx.query(Prisma.sql`SELECT 1 AS one`);
    });
    await expect(kept!.query(Prisma.sql`SELECT 1 AS one`)).rejects.toThrow(/transaction has ended/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { openDatabase, type Database } from "./database.js";
import { createScratchDatabase } from "../../test/scratch-database.js";
import { decodeTimestamp, sqlClientOf } from "./sql.js";

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
  db = await openDatabase({ databaseUrl, poolSize: 2 });
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

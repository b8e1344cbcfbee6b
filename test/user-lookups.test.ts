import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../src/generated/prisma/client.js";
import { sqlClientOf } from "../src/db/sql.js";
import { emailIsSql, signInAccountSql, usernameIsSql } from "../src/users/names.js";
import { startServer, type TestServer } from "./server.js";
import { describePlan, explainNodes } from "./plan.js";

/**
 * Accounts are looked up by name on every sign-in, sign-up and invitation: by username, or by e-mail
 * regardless of case (src/users/names.ts). Plan test over 5,000 accounts after ANALYZE: each lookup goes
 * through indexes, never a sequential scan of users.
 */
describe("account lookups by name are answered through indexes (plan test)", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    const sql = sqlClientOf(server.app.db.prisma);
    await sql.query(Prisma.sql`INSERT INTO users (username, email, name, password_hash)
      SELECT 'lookup' || g, 'Lookup' || g || '@Example.test', 'Lookup ' || g, 'x' FROM generate_series(1, 5000) g`);
    await sql.query(Prisma.sql`ANALYZE users`);
  }, 120_000);
  afterAll(() => server?.close());

  const planOf = async (statement: Prisma.Sql) => {
    const all = await explainNodes(sqlClientOf(server.app.db.prisma), statement);
    return { all, described: describePlan(all) };
  };

  const shapes: [string, Prisma.Sql][] = [
    // A manager's invitation by username or e-mail (src/groups/service.ts accountNamed).
    ["invitation", Prisma.sql`SELECT id FROM users WHERE ${usernameIsSql("LOOKUP77@example.TEST")} OR ${emailIsSql("LOOKUP77@example.TEST")} ORDER BY id LIMIT 1`],
    // Sign-up's clash check (src/users/service.ts createUser).
    ["sign-up", Prisma.sql`SELECT username FROM users WHERE ${usernameIsSql("newcomer")} OR ${emailIsSql("lookup78@example.test")} LIMIT 1`],
    // Sign-in and its rate limit, by e-mail in another case.
    ["sign-in", signInAccountSql("lookup79@EXAMPLE.test")],
  ];
  for (const [name, statement] of shapes) {
    it(`${name}: no sequential scan of users; the e-mail through its lower-cased index`, async () => {
      const { all, described } = await planOf(statement);
      expect(all.filter((node) => node["Node Type"] === "Seq Scan" && node["Relation Name"] === "users"), described).toEqual([]);
      expect(all.some((node) => /email_key/.test(node["Index Name"] ?? "") && !/users_email_key$/.test(node["Index Name"] ?? "")), described).toBe(true);
    });
  }

  it("finds the account whatever the e-mail's case", async () => {
    const sql = sqlClientOf(server.app.db.prisma);
    const [row] = await sql.query<{ id: number }>(signInAccountSql("LOOKUP80@example.test"));
    const [expected] = await sql.query<{ id: number }>(Prisma.sql`SELECT id FROM users WHERE username = 'lookup80'`);
    expect(Number(row!.id)).toBe(Number(expected!.id));
  });
});

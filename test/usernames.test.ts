// Usernames are unique regardless of case (issue 16): the sign-up, the database's own index under the
// trigger-kept username_key, and the migration that resolves clashes already in a database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "./server.js";
import { applyMigrations } from "../src/db/migrate.js";
import { openPGlite } from "../src/db/database.js";

const MIGRATION = "20261124120000_usernames_unique_regardless_of_case";

let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startServer();
  admin = await server.user({ admin: true, username: "root_of_all" });
});
afterAll(() => server?.close());

describe("usernames", () => {
  it("cannot be registered again in another case: 409 naming username", async () => {
    const first = await server.rest("POST", "/members", { token: admin.token, body: { username: "grace", email: "grace@example.test", name: "Grace", password: "compilers-and-cobol-1906" } });
    expect(first.status).toBe(201);
    for (const username of ["GRACE", "Grace", "gRaCe"]) {
      const again = await server.rest("POST", "/members", { token: admin.token, body: { username, email: `${username}@other.test`, name: "Other", password: "a-different-long-passphrase-77" } });
      expect(again.status, username).toBe(409);
      expect(again.body.errors).toEqual([{ parameter: "username", message: expect.stringContaining("taken") }]);
    }
  });

  it("are refused by the database itself, whoever writes", async () => {
    await server.app.db.prisma.user.create({ data: { username: "linus", email: "linus@example.test", name: "Linus", passwordHash: "x" } });
    await expect(server.app.db.prisma.user.create({ data: { username: "LINUS", email: "linus2@example.test", name: "Linus 2", passwordHash: "x" } })).rejects.toThrow();
    // Renaming into a clash too.
    const other = await server.app.db.prisma.user.create({ data: { username: "torvalds", email: "t@example.test", name: "T", passwordHash: "x" } });
    await expect(server.app.db.prisma.user.update({ where: { id: other.id }, data: { username: "Linus" } })).rejects.toThrow();
  });
});

describe(`migration ${MIGRATION}`, () => {
  it("renames all but the oldest of accounts whose names differ only in case to <name>_<id> (or the next free <name>_<id>_N)", async () => {
    const db = await openPGlite();
    const runner = {
      exec: async (sql: string) => void (await db.exec(sql)),
      query: async (sql: string, params?: unknown[]) => (await db.query(sql, params)).rows as Record<string, unknown>[],
    };
    try {
      // Everything before this migration, as a database made before it would be.
      await applyMigrations(runner);
      await db.exec(`DROP TRIGGER users_username_key ON users; DROP FUNCTION users_username_key(); DROP INDEX users_username_key_key; ALTER TABLE users DROP COLUMN username_key;
                     DELETE FROM "_prisma_migrations" WHERE migration_name = '${MIGRATION}'`);
      await db.exec(`INSERT INTO users (id, username, email, name, password_hash) VALUES
        (1, 'admin', 'a1@x.test', 'A', 'h'), (2, 'bob', 'b@x.test', 'B', 'h'), (3, 'Admin', 'a3@x.test', 'A', 'h'),
        (4, 'ADMIN', 'a4@x.test', 'A', 'h'), (5, '${"L".repeat(64)}', 'l5@x.test', 'L', 'h'), (7, 'admin_3', 'a7@x.test', 'A', 'h'),
        (16, '${"l".repeat(64)}', 'l16@x.test', 'L', 'h')`);
      await applyMigrations(runner);
      const rows = (await db.query<{ id: number; username: string; username_key: string }>(`SELECT id, username, username_key FROM users ORDER BY id`)).rows;
      expect(rows.map((row) => [row.id, row.username])).toEqual([
        [1, "admin"],
        [2, "bob"],
        // admin_3 is someone's name already (underscores are allowed): the next free one.
        [3, "Admin_3_2"],
        [4, "ADMIN_4"],
        [5, "L".repeat(64)],
        [7, "admin_3"],
        [16, `${"l".repeat(61)}_16`],
      ]);
      expect(rows.every((row) => row.username_key === row.username.toLowerCase())).toBe(true);
    } finally {
      await db.close();
    }
  });
});

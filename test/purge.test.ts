import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { FIRST_PARTY_CLIENT_ID } from "../src/auth/oauth.js";
import { Prisma } from "../src/generated/prisma/client.js";
import { sqlClientOf } from "../src/db/sql.js";
import { startServer, type TestServer, type TestUser } from "./server.js";

/** PURGE_INTERVAL: expired sessions and tokens, spent refresh tokens included, are deleted on a timer (docs/decisions.md). */
let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startServer({ purgeInterval: 1 });
  user = await server.user();
});

afterAll(() => server?.close());

describe("the purge of expired credentials", () => {
  it("deletes expired sessions and token rows whose access and refresh tokens have both expired, and nothing else", async () => {
    const db = server.app.db.prisma;
    const hour = 3600 * 1000;
    const [past, future] = [new Date(Date.now() - hour), new Date(Date.now() + hour)];
    const session = (name: string, expiresAt: Date) => db.session.create({ data: { tokenHash: `purge-${name}`, csrfToken: "x", userId: user.id, expiresAt } });
    const token = (name: string, accessTokenExpiresAt: Date, refreshTokenExpiresAt: Date | null, rotatedAt: Date | null = null) =>
      db.oAuthToken.create({
        data: {
          accessTokenHash: `purge-access-${name}`,
          refreshTokenHash: refreshTokenExpiresAt ? `purge-refresh-${name}` : null,
          accessTokenExpiresAt,
          refreshTokenExpiresAt,
          rotatedAt,
          familyId: randomUUID(),
          clientId: FIRST_PARTY_CLIENT_ID,
          userId: user.id,
        },
      });
    const expiredSession = await session("expired", past);
    const liveSession = await session("live", future);
    const expiredAccessOnly = await token("expired-access-only", past, null);
    const spentAndExpired = await token("spent-and-expired", past, past, past);
    // Spent but not yet expired: kept, so that a replay of its refresh token is still recognised.
    const spentLive = await token("spent-live", past, future, past);
    const refreshable = await token("refreshable", past, future);
    const live = await token("live", future, future);

    const sessionIds = async () => (await db.session.findMany({ where: { id: { in: [expiredSession.id, liveSession.id] } } })).map((row) => row.id);
    const tokenIds = async () =>
      (await db.oAuthToken.findMany({ where: { id: { in: [expiredAccessOnly, spentAndExpired, spentLive, refreshable, live].map((row) => row.id) } } }))
        .map((row) => row.id)
        .sort((a, b) => a - b);
    const deadline = Date.now() + 10_000;
    while (((await sessionIds()).length > 1 || (await tokenIds()).length > 3) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await sessionIds()).toEqual([liveSession.id]);
    expect(await tokenIds()).toEqual([spentLive.id, refreshable.id, live.id].sort((a, b) => a - b));
    expect((await server.rest("GET", "/members/me", { token: user.token })).status).toBe(200);
  });
});

describe("the purge of list totals' day buckets", () => {
  it("deletes the buckets of days the count triggers no longer keep (before yesterday, UTC) and keeps the rest", async () => {
    const sql = sqlClientOf(server.app.db.prisma);
    const days = [-5, -2, -1, 0, 1, 30];
    for (const offset of days) {
      await sql.query(
        Prisma.sql`INSERT INTO list_count_days (table_name, scope, scope_id, created_by, day, edge, access, rows)
                   VALUES ('purge_test', 'site', 0, 0, (now() AT TIME ZONE 'UTC')::date + ${offset}::int, 'up', 1, 1)`,
      );
    }
    const kept = async () =>
      (
        await sql.query<{ offset: number }>(
          Prisma.sql`SELECT day - (now() AT TIME ZONE 'UTC')::date AS offset FROM list_count_days WHERE table_name = 'purge_test' ORDER BY day`,
        )
      ).map((row) => row.offset);
    const deadline = Date.now() + 10_000;
    while ((await kept()).length > 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await kept()).toEqual([-1, 0, 1, 30]);
  });
});

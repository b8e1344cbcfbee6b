// Parallel refreshes of one refresh token through two server processes on one PostgreSQL database: the
// grace period's sealed pair lives in the database, so whichever instance answers the retry hands out the
// pair the other one issued. (PGlite has one server per database; test/auth.test.ts covers one instance.)
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { createApp, type App } from "../src/app.js";
import { hashPassword } from "../src/users/passwords.js";
import { createHttpServer } from "../src/http/server.js";
import { silentLogger } from "../src/observability/logger.js";
import { createScratchDatabase } from "./scratch-database.js";
import { describeOnPostgres } from "./postgres-only.js";

const base = loadConfig();

describeOnPostgres("refresh grace period across two instances", "PGlite has one server per database", () => {
  const apps: App[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];
  let drop = async () => {};

  beforeAll(async () => {
    const scratch = await createScratchDatabase(base.databaseUrl!);
    drop = scratch.drop;
    for (let instance = 0; instance < 2; instance += 1) {
      const app = await createApp({ config: { ...base, databaseUrl: scratch.url, admin: undefined, rateLimit: 0, loginRateLimit: 0 }, logger: silentLogger(), firstRun: false });
      apps.push(app);
      const server: Server = await new Promise((resolve) => {
        const listening = createHttpServer(app.app).listen(0, "127.0.0.1", () => resolve(listening));
      });
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
    await apps[0]!.db.prisma.user.create({ data: { username: "twice", email: "twice@example.test", name: "Twice", passwordHash: await hashPassword("two-instances-one-token-42") } });
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    for (const app of apps) await app.close();
    await drop();
  });

  const token = (url: string, form: Record<string, string>) =>
    fetch(`${url}/api/developer/oauth/token`, { method: "POST", body: new URLSearchParams(form) }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, string> }));

  it("gives both instances' answers the same new pair, and each instance accepts it", async () => {
    for (let round = 0; round < 5; round += 1) {
      const issued = await token(urls[0]!, { grant_type: "password", username: "twice", password: "two-instances-one-token-42" });
      expect(issued.status).toBe(200);
      const refresh = { grant_type: "refresh_token", refresh_token: issued.body.refresh_token! };
      const answers = await Promise.all([token(urls[0]!, refresh), token(urls[1]!, refresh), token(urls[1]!, refresh)]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(new Set(answers.map((answer) => answer.body.refresh_token)).size).toBe(1);
      expect(new Set(answers.map((answer) => answer.body.access_token)).size).toBe(1);
      for (const url of urls) {
        const me = await fetch(`${url}/api/members/me`, { headers: { authorization: `Bearer ${answers[0]!.body.access_token}` } });
        expect(me.status).toBe(200);
      }
    }
  });
});

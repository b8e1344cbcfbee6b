import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { loadConfig } from "../config.js";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { checkWindows } from "./windows.js";

/** A publishing window opening or closing is an event, appended once by a timed look (src/events/windows.ts). */
describe("publishing window events", () => {
  let server: TestServer;
  let cast: Cast;
  const config = loadConfig({});
  const sql = () => sqlClientOf(server.app.db.prisma);
  /** `YYYY-MM-DD HH:MM:SS` (UTC), as the REST API takes times, `ms` from now (to the second below: 1 s less at worst). */
  const inMs = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 19).replace("T", " ");
  const eventsOf = async (area: string, recordId: number) =>
    (await sql().query<{ type: string; actor: number | null; changed: string[] }>(
      Prisma.sql`SELECT type, actor_id AS actor, changed FROM outbox WHERE area = ${area} AND record_id = ${recordId} ORDER BY xid, id`,
    )).map((row) => row.type);

  beforeAll(async () => {
    server = await startServer();
    cast = await server.cast("windows");
    await checkWindows(server.app.db.prisma, config); // the first look: from now on
  });
  afterAll(() => server?.close());

  it("says when a published entry's window opens and an announcement's closes, once, and nothing for drafts", async () => {
    const opening = await server.rest("POST", "/blog", { token: cast.alice.token, body: { scope: "site", scope_id: 0, title: "Opens soon", content: "Text.", state: 1, publish_up: inMs(4000) } });
    const draft = await server.rest("POST", "/blog", { token: cast.alice.token, body: { scope: "site", scope_id: 0, title: "Draft, opens soon", content: "Text.", state: 0, publish_up: inMs(4000) } });
    const closing = await server.rest("POST", `/groups/${cast.groupId}/announcements`, { token: cast.manager.token, body: { title: "Closes soon", content: "Text.", publish_down: inMs(4000) } });
    expect([opening.status, draft.status, closing.status], JSON.stringify([opening.body, draft.body, closing.body])).toEqual([201, 201, 201]);
    expect(await checkWindows(server.app.db.prisma, config)).toBe(0); // not yet
    await new Promise((resolve) => setTimeout(resolve, 4000));
    // The server's own look (every 10 s) may hold the schedule's row a moment: look until it is done.
    for (let tries = 0; tries < 20 && (await eventsOf("announcements", closing.body.id)).length < 2; tries++) {
      await checkWindows(server.app.db.prisma, config);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await checkWindows(server.app.db.prisma, config); // again: nothing twice
    expect(await eventsOf("blog", opening.body.id)).toEqual(["blog.entryCreated", "blog.windowOpened"]);
    expect(await eventsOf("blog", draft.body.id)).toEqual(["blog.entryCreated"]);
    expect(await eventsOf("announcements", closing.body.id)).toEqual(["announcements.announcementCreated", "announcements.windowClosed"]);
    const [opened] = await sql().query<{ actor: number | null; changed: string[]; visibility: string }>(
      Prisma.sql`SELECT actor_id AS actor, changed, visibility FROM outbox WHERE type = 'blog.windowOpened' AND record_id = ${opening.body.id}`,
    );
    expect(opened).toEqual({ actor: null, changed: ["publishUp"], visibility: "public" });
  });
});

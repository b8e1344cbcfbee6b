import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { outboxWritten, type StoredEvent } from "../common/outbox.js";
import { outboxInsert } from "../common/events.js";
import { sqlClientOf } from "../db/sql.js";
import { subscribeOverSse } from "../../test/sse.js";
import { endOfOutbox, hubOf, MAX_QUEUED } from "./subscriptions.js";
import { Prisma } from "../generated/prisma/client.js";
import { anonymous } from "../common/context.js";
import type { SqlClient } from "../db/sql.js";
import { purgeDeliveredEvents } from "./dispatcher.js";
import { allEventsReadable } from "../../test/outbox.js";
import { skipUnlessPostgres } from "../../test/postgres-only.js";

/**
 * GraphQL subscriptions over SSE (graphql-yoga at /graphql), through real HTTP: what a subscriber receives
 * is what they may read when the event commits.
 */
describe("subscriptions over SSE", () => {
  let server: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    server = await startServer();
    cast = await server.cast("subscribers");
  });
  afterAll(() => server?.close());

  interface Received {
    type: string;
    recordId: number;
    actorId: number | null;
    id: string;
  }

  /** Opens a subscription on the server (resuming after `lastEventId`); collects its events until closed. */
  const subscribe = (query: string, variables: Record<string, unknown> = {}, token?: string, lastEventId?: string) =>
    subscribeOverSse<Received>(server.url, hubOf(server.app.db.prisma), query, variables, token, { lastEventId });

  const eventsQuery = `subscription($types: [String!], $scope: String, $scopeId: Int) { events(types: $types, scope: $scope, scopeId: $scopeId) { id type recordId actorId } }`;

  /** Waits until `done`, up to 5 s (delivery follows the commit by milliseconds, not within the request); `seen` says what had come when it gives up. */
  async function eventually(done: () => boolean, seen: () => unknown = () => "") {
    for (let waited = 0; !done(); waited += 20) {
      if (waited > 5000) throw new Error(`not received within 5 s ${JSON.stringify(seen())}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
  const graphql = (query: string, variables: Record<string, unknown>, token?: string) => server.graphqlText(query, variables, token);


  it("follows one record: wikiPageChanged(id) gets that page's updates and deletion, and refuses a page the caller may not read", async () => {
    const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Followed page", pagetext: "One.", state: 1 } });
    const other = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Unfollowed page", pagetext: "One.", state: 1 } });
    expect([page.status, other.status]).toEqual([201, 201]);
    const follower = await subscribe(`subscription($id: Int!) { wikiPageChanged(id: $id) { id type recordId } }`, { id: page.body.id });
    try {
      // Each write's answer is checked: a write refused (503 under load) is not reported as an event never delivered.
      expect((await server.rest("PATCH", `/wiki/${other.body.id}`, { token: cast.alice.token, body: { pagetext: "Two." } })).status).toBe(200);
      expect((await server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.alice.token, body: { pagetext: "Two." } })).status).toBe(200);
      expect((await server.rest("DELETE", `/wiki/${page.body.id}`, { token: cast.alice.token })).status).toBe(204);
      await eventually(() => follower.events.length >= 2, () => ({ events: follower.events, errors: follower.errors }));
      await settle();
      expect(follower.events.map((event) => [event.type, event.recordId])).toEqual([
        ["wiki.pageUpdated", page.body.id],
        ["wiki.pageDeleted", page.body.id],
      ]);
      expect(new Set(follower.events.map((event) => event.id)).size).toBe(2);
    } finally {
      await follower.close();
    }
    const draft = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Alice's draft", pagetext: "One.", state: 0 } });
    const refused = await subscribe(`subscription($id: Int!) { wikiPageChanged(id: $id) { id } }`, { id: draft.body.id }, cast.bob.token);
    await eventually(() => refused.errors.length > 0);
    expect(JSON.stringify(refused.errors)).toContain(`Wiki page ${draft.body.id} not found`);
    await refused.close();
  });

  it("starts a subscription after what has committed, even when another database's transaction ends while the start is read", async (context) => {
    skipUnlessPostgres(context, "another database's transaction ending while a subscription's start is read", "PGlite has one database");
    const sql = sqlClientOf(server.app.db.prisma);
    const { default: pg } = await import("pg");
    // Another database of the server (the run's, as another test file's) holds an xid older than the write below.
    const elsewhere = new pg.Client({ connectionString: process.env.DATABASE_URL });
    const locker = new pg.Client({ connectionString: server.databaseUrl });
    await Promise.all([elsewhere.connect(), locker.connect()]);
    try {
      await elsewhere.query("BEGIN");
      await elsewhere.query("SELECT pg_current_xact_id()");
      const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Written before the subscription", pagetext: "Text.", state: 1 } });
      expect(page.status).toBe(201);
      await allEventsReadable(sql); // readable: that transaction is another database's
      const [written] = await sql.query<{ xid: string; id: string }>(Prisma.sql`SELECT xid::text AS xid, id::text AS id FROM outbox ORDER BY outbox.xid DESC, outbox.id DESC LIMIT 1`);

      // The start's first statement takes its snapshot, then waits (an advisory lock) before it reads pg_stat_activity;
      // meanwhile the other database's transaction ends: in the snapshot, no longer in pg_stat_activity.
      await locker.query("SELECT pg_advisory_lock(hashtext('subscription start test'))");
      let held = true;
      const holding: SqlClient = {
        query: (statement) => {
          if (!held) return sql.query(statement);
          held = false;
          return sql.query(Prisma.sql`SELECT q.* FROM (SELECT pg_advisory_xact_lock(hashtext('subscription start test'))::text AS waited) AS w,
                                             LATERAL (SELECT * FROM (${statement}) AS s WHERE w.waited IS NOT NULL) AS q`);
        },
        transaction: (work) => sql.transaction(work),
      };
      const starting = endOfOutbox(holding);
      for (let waited = 0; ; waited += 10) {
        const [row] = await sql.query<{ waiting: boolean }>(Prisma.sql`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted) AS waiting`);
        if (row!.waiting) break;
        if (waited > 5000) throw new Error("the start's statement never waited for the lock");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await elsewhere.query("ROLLBACK");
      await locker.query("SELECT pg_advisory_unlock(hashtext('subscription start test'))");
      const start = await starting;
      // Not before the page's event: a subscriber starting here is not sent what was committed before it subscribed.
      const notBefore = BigInt(start.xid) > BigInt(written!.xid) || (start.xid === written!.xid && BigInt(start.id) >= BigInt(written!.id));
      expect({ start, notBefore }).toEqual({ start, notBefore: true });
    } finally {
      await elsewhere.query("ROLLBACK").catch(() => {});
      await Promise.all([elsewhere.end(), locker.end()]);
    }
  });

  it("resumes with Last-Event-ID: a client that reconnects gets what it missed and may read, then what comes", async () => {
    const query = `subscription { events(types: ["wiki.pageCreated"]) { id type recordId } }`;
    const first = await subscribe(query, {}, cast.bob.token);
    const seen = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Seen before the drop", pagetext: "Text.", state: 1 } });
    await eventually(() => first.events.some((event) => event.recordId === seen.body.id));
    const lastId = first.events.find((event) => event.recordId === seen.body.id)!.id;
    await first.close();

    // Written while the client was away: two public pages, and one it may not read.
    const missed1 = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Missed one", pagetext: "Text.", state: 1 } });
    await server.rest("POST", "/wiki", { token: cast.member.token, body: { title: "Missed, members only", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
    const missed2 = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Missed two", pagetext: "Text.", state: 1 } });

    const resumed = await subscribe(query, {}, cast.bob.token, lastId);
    try {
      const live = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "After the reconnect", pagetext: "Text.", state: 1 } });
      await eventually(() => resumed.events.length >= 3);
      await settle();
      expect(resumed.events.map((event) => event.recordId)).toEqual([missed1.body.id, missed2.body.id, live.body.id]);
    } finally {
      await resumed.close();
    }
    const bad = await subscribe(query, {}, cast.bob.token, "not-an-id");
    await eventually(() => bad.errors.length > 0);
    expect(JSON.stringify(bad.errors)).toContain("Last-Event-ID");
    await bad.close();
  });

  it("refuses a Last-Event-ID that events after it were purged since (OUTBOX_RETENTION_HOURS), instead of resuming over the gap; one whose own event alone went resumes", async () => {
    // Edits: a page's creation makes an activity entry, whose event comes after it; an edit makes none.
    const query = `subscription { events(types: ["wiki.pageUpdated"]) { id type recordId } }`;
    const purge = async () => {
      await allEventsReadable(sqlClientOf(server.app.db.prisma));
      await server.app.dispatcher.flush(); // every consumer has taken them: the purge may delete them
      return purgeDeliveredEvents(server.app.db.prisma, 0);
    };
    const edit = async (title: string) => {
      const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title, pagetext: "Text.", state: 1 } });
      await server.app.dispatcher.flush(); // the page's activity entry and its event, before the edit
      return server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.alice.token, body: { title: `${title} (edited)` } });
    };
    const lastIdOf = async (title: string) => {
      const first = await subscribe(query, {}, cast.bob.token);
      const seen = await edit(title);
      await eventually(() => first.events.some((event) => event.recordId === seen.body.id));
      await first.close();
      return first.events.find((event) => event.recordId === seen.body.id)!.id;
    };

    // The client's last event was the newest; it alone is purged (a quiet site): nothing was missed.
    const quiet = await lastIdOf("The newest, then purged");
    expect((await purge()).deleted).toBeGreaterThan(0);
    const resumedQuietly = await subscribe(query, {}, cast.bob.token, quiet);
    try {
      const live = await edit("After a quiet purge");
      await eventually(() => resumedQuietly.events.length >= 1);
      expect(resumedQuietly.errors).toEqual([]);
      expect(resumedQuietly.events.map((event) => event.recordId)).toEqual([live.body.id]);
    } finally {
      await resumedQuietly.close();
    }

    // Written while the client was away, then purged with its last event: a gap.
    const lastId = await lastIdOf("Seen, then purged");
    await edit("Missed, then purged");
    await purge();
    const resumed = await subscribe(query, {}, cast.bob.token, lastId);
    try {
      await eventually(() => resumed.errors.length > 0);
      expect(resumed.errors).toEqual([expect.objectContaining({ message: expect.stringContaining("no longer holds some of the events after"), extensions: expect.objectContaining({ code: "SUBSCRIPTION_LAGGING" }) })]);
      expect(resumed.events).toEqual([]);
    } finally {
      await resumed.close();
    }
  });

  it("counts a subscription as open only once it has its place in the outbox: an event committed after the count reaches it", async () => {
    // The gauge and the test helpers wait for this count before writing; counting a subscription still reading the
    // outbox's end let a write committed before that end go unseen (a GraphiQL browser test timed out on it in CI).
    const hub = hubOf(server.app.db.prisma);
    const before = hub.size;
    const opening = hub.subscribe(anonymous, () => true);
    expect(hub.size).toBe(before);
    const stream = await opening;
    expect(hub.size).toBe(before + 1);
    await stream.return!();
    expect(hub.size).toBe(before);
  });

  it("closes a subscription that falls more than 1,000 events behind with one clear error event, and forgets its queue", async () => {
    const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Flooded page", pagetext: "Text.", state: 1 } });
    const hub = hubOf(server.app.db.prisma);
    const flooded = await subscribe(`subscription { events(types: ["wiki.pageUpdated"]) { id } }`);
    const before = hub.size;
    // More events at once than a subscription may hold (as for a reader that stopped reading), after everything real.
    const flood: StoredEvent[] = Array.from({ length: MAX_QUEUED + 1 }, (_, index) => ({
      id: String(9_000_000_000 + index), xid: "9000000000", type: "wiki.pageUpdated", area: "wiki", recordId: page.body.id, actorId: cast.alice.id,
      anonymous: false, scope: "site", scopeId: 0, visibility: "public", published: true, audience: "readers", subjectId: null, changed: ["title"],
      payload: {}, occurredAt: new Date(),
    }));
    await hub.publish(flood);
    await eventually(() => flooded.errors.length > 0);
    expect(flooded.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: "SUBSCRIPTION_LAGGING" }) })]);
    expect(hub.size).toBe(before - 1);
    await flooded.close();
  });

  it("refuses an event type not in the catalogue, naming `types`", async () => {
    const bad = await subscribe(eventsQuery, { types: ["wiki.nothing"] });
    await eventually(() => bad.errors.length > 0);
    expect(JSON.stringify(bad.errors)).toContain("types");
    await bad.close();
  });

  it("shows a membership request only to the group's managers and the applicant", async () => {
    const groupCn = `subsrestricted${Date.now().toString(36)}`;
    const made = await server.rest("POST", "/groups", { token: cast.manager.token, body: { cn: groupCn, title: "Restricted", join_policy: "restricted", discoverability: "visible" } });
    expect(made.status).toBe(201);
    const query = `subscription { events(types: ["groups.joinRequested"]) { type recordId } }`;
    const [manager, applicant, bystander] = [await subscribe(query, {}, cast.manager.token), await subscribe(query, {}, cast.bob.token), await subscribe(query, {}, cast.alice.token)];
    try {
      const joined = await graphql(`mutation($group: ID!) { joinGroup(group: $group) { id } }`, { group: groupCn }, cast.bob.token);
      expect(joined.errors).toBeUndefined();
      await eventually(() => manager.events.length >= 1 && applicant.events.length >= 1);
      await settle();
      expect(bystander.events).toEqual([]);
      expect(manager.events[0]).toMatchObject({ type: "groups.joinRequested", recordId: made.body.gidNumber });
    } finally {
      await Promise.all([manager.close(), applicant.close(), bystander.close()]);
    }
  });

  it("delivers what each subscriber may read: public pages to everyone, a group's private page to its members only, and stops when a member leaves", async () => {
    const anonymous = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] });
    const member = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] }, cast.member.token);
    const outsider = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] }, cast.bob.token);
    try {
      const open = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Public news", pagetext: "Text.", state: 1 } });
      const closed = await server.rest("POST", "/wiki", { token: cast.member.token, body: { title: "Members only", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
      expect([open.status, closed.status]).toEqual([201, 201]);
      await eventually(() => member.events.length >= 2 && anonymous.events.length >= 1 && outsider.events.length >= 1);
      await settle();
      expect(member.events.map((event) => event.recordId)).toEqual([open.body.id, closed.body.id]);
      expect(anonymous.events.map((event) => event.recordId)).toEqual([open.body.id]);
      expect(outsider.events.map((event) => event.recordId)).toEqual([open.body.id]);
      expect(anonymous.events[0]).toMatchObject({ type: "wiki.pageCreated", actorId: cast.alice.id });

      // The member is removed by a manager: the group's next private page no longer reaches them; a public one does.
      const removed = await graphql(`mutation($group: ID!, $user: String!) { removeGroupMember(group: $group, user: $user) { id } }`, { group: String(cast.groupId), user: cast.member.username }, cast.manager.token);
      expect(removed.errors).toBeUndefined();
      const afterClosed = await server.rest("POST", "/wiki", { token: cast.manager.token, body: { title: "After the removal", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
      const afterOpen = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Public again", pagetext: "Text.", state: 1 } });
      await eventually(() => member.events.length >= 3 && anonymous.events.length >= 2);
      await settle();
      expect(member.events.map((event) => event.recordId)).toEqual([open.body.id, closed.body.id, afterOpen.body.id]);
      expect(afterClosed.status).toBe(201);
    } finally {
      await Promise.all([anonymous.close(), member.close(), outsider.close()]);
    }
  });

  it("checks each batch against the subscriber's credential and rights now: a revoked token ends the stream with 401, a demoted administrator stops seeing private pages", async () => {
    const holder = await server.user();
    const formerAdmin = await server.user({ admin: true });
    const revoked = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] }, holder.token);
    const demoted = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] }, formerAdmin.token);
    try {
      const first = await server.rest("POST", "/wiki", { token: cast.manager.token, body: { title: "Private before", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
      await eventually(() => demoted.events.length >= 1 || demoted.errors.length > 0);
      expect(demoted.errors).toEqual([]);
      expect(demoted.events.map((event) => event.recordId)).toEqual([first.body.id]);

      expect((await server.rest("POST", "/developer/oauth/revoke", { form: { token: holder.token } })).status).toBe(200);
      await server.app.db.prisma.user.update({ where: { id: formerAdmin.id }, data: { isAdmin: false } });
      const second = await server.rest("POST", "/wiki", { token: cast.manager.token, body: { title: "Private after", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
      const open = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Public after", pagetext: "Text.", state: 1 } });
      expect([second.status, open.status]).toEqual([201, 201]);
      await eventually(() => demoted.events.length >= 2 && revoked.errors.length >= 1);
      await settle();
      expect(demoted.events.map((event) => event.recordId)).toEqual([first.body.id, open.body.id]);
      expect(revoked.events).toEqual([]);
      expect(revoked.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: "UNAUTHENTICATED" }) })]);
      expect(hubOf(server.app.db.prisma).size).toBeGreaterThan(0);
    } finally {
      await Promise.all([revoked.close(), demoted.close()]);
    }
  });

  it("never shows an anonymous record's actor to anyone but the actor and administrators", async () => {
    // No area writes anonymous records yet (the forum will): the event is appended as the kit appends any
    // event no write makes, about a public page, so every subscriber may read it and only the actor differs.
    const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Anonymous post stand-in", pagetext: "Text.", state: 1 } });
    const query = `subscription($id: Int!) { wikiPageChanged(id: $id) { id type recordId actorId } }`;
    const [nobody, stranger, actor, admin] = await Promise.all([
      subscribe(query, { id: page.body.id }),
      subscribe(query, { id: page.body.id }, cast.bob.token),
      subscribe(query, { id: page.body.id }, cast.alice.token),
      subscribe(query, { id: page.body.id }, cast.admin.token),
    ]);
    try {
      await sqlClientOf(server.app.db.prisma).query(
        outboxInsert({ type: "wiki.pageUpdated", area: "wiki", recordId: page.body.id, actorId: cast.alice.id, anonymous: true, scope: "site", scopeId: 0, visibility: "public", published: true, changed: ["pagetext"], payload: { id: page.body.id } }),
      );
      outboxWritten(server.app.db.prisma);
      await eventually(() => [nobody, stranger, actor, admin].every((subscription) => subscription.events.length >= 1));
      expect([nobody, stranger, actor, admin].map((subscription) => subscription.events.map((event) => event.actorId))).toEqual([[null], [null], [cast.alice.id], [cast.alice.id]]);
    } finally {
      await Promise.all([nobody.close(), stranger.close(), actor.close(), admin.close()]);
    }
  });

  it("applies the query limits to subscription documents: cost (fragments spread hundreds of times), aliases", async () => {
    // 14 fields a spread, 400 spreads: a cost of 5,600 in some 830 tokens.
    const costly = `subscription { events { ...All ${Array.from({ length: 399 }, () => "...All").join(" ")} } } fragment All on DomainEvent { id type area recordId actorId scope scopeId visibility published subjectId changed payload occurredAt }`;
    const refused = await subscribe(costly);
    expect(refused.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/costs \d+, more than the limit of 5000/) })]);
    await refused.close();
    const aliased = `subscription { events { ${Array.from({ length: 16 }, (_, index) => `a${index}: id`).join(" ")} } }`;
    const tooMany = await subscribe(aliased);
    expect(tooMany.errors.length).toBe(1);
    await tooMany.close();
    expect(hubOf(server.app.db.prisma).size).toBe(0);
  });

  it("checks a batch for every subscriber in two statements however many subscribe, not one part per subscriber", async () => {
    const checks: string[] = [];
    const stop = server.app.db.onQuery((sql) => void (/ AS relation /.test(sql) && checks.push(sql)));
    // What the outbox's other readers check for a page (the activity consumer's recipients), with nobody subscribed.
    await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Seen by nobody", pagetext: "Text.", state: 1 } });
    await allEventsReadable(sqlClientOf(server.app.db.prisma));
    await server.app.dispatcher.flush();
    const others = checks.splice(0).length;
    const users = await Promise.all(Array.from({ length: 60 }, () => server.user()));
    const subscriptions = await Promise.all(users.map((user) => subscribe(eventsQuery, { types: ["wiki.pageCreated"] }, user.token)));
    try {
      const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Seen by sixty", pagetext: "Text.", state: 1 } });
      await eventually(() => subscriptions.every((subscription) => subscription.events.some((event) => event.recordId === page.body.id)));
      await allEventsReadable(sqlClientOf(server.app.db.prisma));
      await server.app.dispatcher.flush();
      // Whether the page exists, then every viewer's rights at once (their ids a column), besides the other readers'.
      expect(checks.length - others).toBe(2);
    } finally {
      stop();
      await Promise.all(subscriptions.map((subscription) => subscription.close()));
    }
  });

  it("holds a user to 20 subscriptions on a server (TOO_MANY_SUBSCRIPTIONS), and filters by scope", async () => {
    const user = await server.user();
    const open = await Promise.all(Array.from({ length: 20 }, () => subscribe(eventsQuery, { types: ["wiki.pageCreated"], scope: "group", scopeId: cast.groupId }, user.token)));
    try {
      expect(open.every((subscription) => subscription.errors.length === 0)).toBe(true);
      const refused = await subscribe(eventsQuery, {}, user.token);
      expect(refused.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: "TOO_MANY_SUBSCRIPTIONS" }) })]);
      await refused.close();
      // The group's public page comes, the site's does not.
      const site = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Site news", pagetext: "Text.", state: 1 } });
      const inGroup = await server.rest("POST", "/wiki", { token: cast.manager.token, body: { title: "Group news", pagetext: "Text.", state: 1, scope: "group", scope_id: cast.groupId } });
      expect([site.status, inGroup.status]).toEqual([201, 201]);
      await eventually(() => open[0]!.events.length >= 1);
      await settle();
      expect(open[0]!.events.map((event) => event.recordId)).toEqual([inGroup.body.id]);
    } finally {
      await Promise.all(open.map((subscription) => subscription.close()));
    }
  });

  it("holds anonymous callers from one address to 100 subscriptions", async () => {
    const open = await Promise.all(Array.from({ length: 100 }, () => subscribe(eventsQuery, { types: ["wiki.pageDeleted"] })));
    try {
      expect(open.filter((subscription) => subscription.errors.length).length).toBe(0);
      const refused = await subscribe(eventsQuery, {});
      expect(refused.errors).toEqual([expect.objectContaining({ message: expect.stringContaining("from one address"), extensions: expect.objectContaining({ code: "TOO_MANY_SUBSCRIPTIONS" }) })]);
      await refused.close();
    } finally {
      await Promise.all(open.map((subscription) => subscription.close()));
    }
  });

  it("authenticates by session cookie as queries do: with the CSRF token a manager gets the group's private page; without it, 403", async () => {
    const session = await server.rest("POST", "/session", { body: { username: cast.manager.username, password: cast.manager.password } });
    expect(session.status).toBe(201);
    const cookie = session.headers.getSetCookie().find((line) => line.startsWith("hubgraph_session="))!.split(";")[0]!;
    const refused = await subscribeOverSse<Received>(server.url, hubOf(server.app.db.prisma), eventsQuery, { types: ["wiki.pageCreated"] }, undefined, { headers: { cookie } });
    await refused.close();
    expect(refused.status).toBe(403);
    const member = await subscribeOverSse<Received>(server.url, hubOf(server.app.db.prisma), eventsQuery, { types: ["wiki.pageCreated"] }, undefined, {
      headers: { cookie, "x-csrf-token": session.body.csrfToken },
    });
    try {
      expect(member.status).toBe(200);
      const closed = await server.rest("POST", "/wiki", { token: cast.admin.token, body: { title: "Members only, seen by cookie", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
      expect(closed.status).toBe(201);
      await eventually(() => member.events.some((event) => event.recordId === closed.body.id));
    } finally {
      await member.close();
    }
  });
});

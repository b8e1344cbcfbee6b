import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import type { StoredEvent } from "../common/outbox.js";
import { outboxInsert } from "../common/events.js";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { allEventsReadable } from "../../test/outbox.js";
import { skipUnlessPostgres } from "../../test/postgres-only.js";
import { onOutboxWritten } from "../common/outbox.js";
import { drainAll, drainOnce, purgeDeliveredEvents, startDispatcher, type OutboxConsumer } from "./dispatcher.js";

/** Delivery from the outbox: durable cursors, one transaction per batch, at least once, purge behind every cursor. */
describe("the outbox dispatcher", () => {
  let server: TestServer;
  let cast: Cast;
  const sql = () => sqlClientOf(server.app.db.prisma);
  const db = () => server.app.db.prisma;

  beforeAll(async () => {
    server = await startServer();
    cast = await server.cast("dispatcher");
  });
  afterAll(() => server?.close());

  /** A consumer that records what it is handed, and writes each event's id in the drain's transaction. */
  const recording = (name: string, options: { failFirst?: number } = {}) => {
    const seen: StoredEvent[] = [];
    let failures = options.failFirst ?? 0;
    const consumer: OutboxConsumer = {
      name,
      async handle(handed, tx) {
        // The activity consumer's entries for the test's pages (their own events) are not what these tests follow.
        const events = handed.filter((event) => event.area !== "activity");
        await tx.query(Prisma.sql`INSERT INTO test_dispatched (consumer, event_id) SELECT ${name}, unnest(${events.map((event) => event.id)}::bigint[])`);
        if (failures > 0) {
          failures -= 1;
          throw new Error("the consumer failed");
        }
        seen.push(...events);
      },
    };
    return { consumer, seen };
  };
  const dispatched = async (name: string) =>
    (await sql().query<{ id: string }>(Prisma.sql`SELECT event_id::text AS id FROM test_dispatched WHERE consumer = ${name} ORDER BY event_id`)).map((row) => row.id);
  const readable = () => allEventsReadable(sql());
  const write = async (title: string) => {
    const created = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title, pagetext: "Text.", state: 1 } });
    expect(created.status).toBe(201);
    // The page's activity entry and that entry's event are written by the server's own consumer: let them be
    // written now, so that every drain below is handed both events, whatever the timing.
    await server.app.dispatcher.flush();
    await readable();
    return created.body.id as number;
  };

  beforeAll(async () => {
    await sql().query(Prisma.sql`CREATE TABLE IF NOT EXISTS test_dispatched (consumer text NOT NULL, event_id bigint NOT NULL, PRIMARY KEY (consumer, event_id))`);
  });

  it("hands each committed event to a consumer once, in order, and a new consumer starts from the first event", async () => {
    const page = await write("Dispatched page");
    const { consumer, seen } = recording("test-once");
    const { delivered } = await drainAll(db(), consumer, 3); // several batches
    expect(delivered).toBeGreaterThan(0);
    expect(seen.map((event) => event.recordId)).toContain(page);
    const order = seen.map((event) => [BigInt(event.xid), BigInt(event.id)] as const);
    expect(order).toEqual([...order].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1)));
    // Caught up: nothing more, however often it drains.
    expect((await drainAll(db(), consumer)).delivered).toBe(0);
    const later = await write("Dispatched later");
    expect((await drainAll(db(), consumer)).delivered).toBeGreaterThan(0);
    expect(seen.at(-1)!.recordId).toBe(later);
    expect(await dispatched("test-once")).toEqual(seen.map((event) => event.id));
  });

  it("resumes from the stored cursor after a restart: nothing again, nothing lost", async () => {
    const { consumer: before } = recording("test-restart");
    await drainAll(db(), before);
    const missed = await write("Written while the server was down");
    // The same consumer in a "new process": only its cursor row carries over.
    const { consumer: after, seen } = recording("test-restart");
    await drainAll(db(), after);
    expect(seen.map((event) => event.recordId)).toEqual([missed]);
  });

  it("rolls a failed batch back with what the consumer wrote, keeps the cursor, and delivers the same events again", async () => {
    const { consumer: first } = recording("test-retry");
    await drainAll(db(), first);
    const page = await write("Delivered after a failure");
    const { consumer, seen } = recording("test-retry", { failFirst: 1 });
    await expect(drainOnce(db(), consumer)).rejects.toThrow("the consumer failed");
    expect(seen).toEqual([]);
    const [cursor] = await sql().query<{ failures: string }>(Prisma.sql`SELECT failures::text AS failures FROM outbox_consumers WHERE name = 'test-retry'`);
    expect(cursor!.failures).toBe("1");
    expect((await drainOnce(db(), consumer)).delivered).toBe(2); // the page's event and its activity entry's
    expect(seen.map((event) => event.recordId)).toEqual([page]);
    // The failed attempt's write was rolled back: the event was recorded once.
    expect((await dispatched("test-retry")).filter((id) => id === seen[0]!.id)).toHaveLength(1);
  });

  it("lets one instance at a time drain a consumer: a second finds it busy and does nothing", async (context) => {
    skipUnlessPostgres(context, "two drains at once", "PGlite runs one transaction at a time");
    await drainAll(db(), recording("test-instances").consumer);
    await write("Raced by two instances");
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const slow: OutboxConsumer = {
      name: "test-instances",
      async handle() {
        entered();
        await holding;
      },
    };
    const first = drainOnce(db(), slow);
    await inside;
    expect(await drainOnce(db(), recording("test-instances").consumer)).toEqual({ delivered: 0, busy: true, pending: false });
    release();
    expect((await first).delivered).toBe(2); // the page's event and its activity entry's
  });

  it("delivers an event whose lower id commits after a higher one's: never skipped", async (context) => {
    skipUnlessPostgres(context, "transactions committing out of order", "PGlite runs one transaction at a time");
    const { consumer, seen } = recording("test-late");
    await drainAll(db(), consumer);
    const before = seen.length;
    const event = (recordId: number) =>
      outboxInsert({ type: "wiki.pageUpdated", area: "wiki", recordId, actorId: null, anonymous: false, scope: "site", scopeId: 0, visibility: "public", published: true, changed: [], payload: {} });
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const hasId = new Promise<void>((resolve) => (inserted = resolve));
    const late = sql().transaction(async (tx) => {
      await tx.query(event(910001)); // the lower id, committed last
      inserted();
      await holding;
    });
    await hasId;
    await sql().transaction((tx) => tx.query(event(910002)));
    await drainAll(db(), consumer);
    expect(seen.map((delivered) => delivered.recordId)).not.toContain(910002); // held behind the open transaction
    release();
    await late;
    await readable();
    await drainAll(db(), consumer);
    expect(seen.slice(before).map((delivered) => delivered.recordId)).toEqual([910001, 910002]);
  });

  it("is not held back by a transaction of another database on the same server (transaction ids are the server's)", async (context) => {
    skipUnlessPostgres(context, "a transaction in another database", "PGlite has one database");
    const { consumer, seen } = recording("test-late"); // a consumer the purge test below drains too
    await drainAll(db(), consumer);
    const { default: pg } = await import("pg");
    const elsewhere = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await elsewhere.connect();
    try {
      await elsewhere.query("BEGIN");
      await elsewhere.query("SELECT pg_current_xact_id()"); // holds an xid, older than the write below
      await write("Written while another database's transaction runs");
      const delivered = await drainOnce(db(), consumer);
      expect(delivered.delivered).toBe(2); // the page's event and its activity entry's
      expect(seen.at(-1)?.type).toBe("wiki.pageCreated");
    } finally {
      await elsewhere.query("ROLLBACK").catch(() => {});
      await elsewhere.end();
    }
  });

  it("runs: a write in this process wakes delivery at once; events other instances wrote are found by polling; a failing consumer does not hold up the others", async () => {
    const until = async (done: () => boolean) => {
      for (let waited = 0; !done(); waited += 20) {
        if (waited > 10_000) throw new Error("not delivered in 10 s");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const { consumer: woken, seen: wokenSeen } = recording("test-woken");
    await drainAll(db(), woken);
    const failing: OutboxConsumer = { name: "test-always-failing", handle: async () => Promise.reject(new Error("broken consumer")) };
    const failures: string[] = [];
    const counted = { delivered: () => {}, failed: (name: string) => void failures.push(name) };
    const quiet = startDispatcher({ db: db(), consumers: [failing, woken], pollMs: 0, log: () => {}, counted });
    const stopWaking = onOutboxWritten(db(), quiet.wake);
    try {
      const page = await write("Woken delivery");
      await until(() => wokenSeen.some((event) => event.recordId === page));
      expect(failures).toContain("test-always-failing");
    } finally {
      stopWaking();
      await quiet.stop();
    }

    const { consumer: polled, seen: polledSeen } = recording("test-polled");
    await drainAll(db(), polled);
    const polling = startDispatcher({ db: db(), consumers: [polled], pollMs: 50, log: () => {} });
    try {
      // Written without this process's write path (as by another instance): nothing wakes delivery.
      await sql().query(
        outboxInsert({ type: "wiki.pageUpdated", area: "wiki", recordId: 920001, actorId: null, anonymous: false, scope: "site", scopeId: 0, visibility: "public", published: true, changed: [], payload: {} }),
      );
      await until(() => polledSeen.some((event) => event.recordId === 920001));
    } finally {
      await polling.stop();
    }
  });

  it("hands no event to two drains, however their transactions interleave (a drain reads the cursor after it holds the consumer)", async (context) => {
    skipUnlessPostgres(context, "drains racing on one consumer", "PGlite runs one transaction at a time");
    const handed = new Map<string, number>();
    const consumer: OutboxConsumer = {
      name: "test-race",
      async handle(events) {
        for (const event of events) handed.set(event.id, (handed.get(event.id) ?? 0) + 1);
      },
    };
    await drainAll(db(), consumer);
    handed.clear();
    // One writer and three drains of one event each, as fast as they go: a drain that held the consumer
    // just after another committed, but read its cursor from before that commit, handed the batch again.
    let stop = false;
    const writer = (async () => {
      for (let index = 0; !stop; index++) {
        await sql().query(
          outboxInsert({ type: "wiki.pageUpdated", area: "wiki", recordId: 930000 + (index % 100), actorId: null, anonymous: false, scope: "site", scopeId: 0, visibility: "public", published: true, changed: [], payload: {} }),
        );
      }
    })();
    const drain = async () => {
      while (!stop) await drainOnce(db(), consumer, 1);
    };
    const drains = Promise.all([drain(), drain(), drain()]);
    await new Promise((resolve) => setTimeout(resolve, 8000));
    stop = true;
    await Promise.all([writer, drains]);
    await drainAll(db(), consumer);
    expect(handed.size).toBeGreaterThan(100);
    expect([...handed].filter(([, times]) => times > 1)).toEqual([]);
  }, 30_000);

  it("purges events only once every consumer has them and they are past the retention", async () => {
    const { consumer: lagging } = recording("test-purge-lagging");
    await drainAll(db(), lagging);
    const page = await write("Kept for a lagging consumer");
    // Every other consumer of this test file takes it; the lagging one does not yet.
    for (const name of ["test-once", "test-restart", "test-retry", "test-instances", "test-late", "test-woken", "test-polled", "test-always-failing", "test-race"]) await drainAll(db(), recording(name).consumer);
    const exists = async () => (await sql().query(Prisma.sql`SELECT 1 FROM outbox WHERE area = 'wiki' AND record_id = ${page}`)).length > 0;
    await purgeDeliveredEvents(db(), 0);
    expect(await exists()).toBe(true);
    await drainAll(db(), lagging);
    await server.app.dispatcher.flush(); // the server's own consumers (the plugins') too
    await purgeDeliveredEvents(db(), 1); // within the retention: kept
    expect(await exists()).toBe(true);
    await purgeDeliveredEvents(db(), 0);
    expect(await exists()).toBe(false);
  });

  it("no longer waits for a consumer whose cursor has not moved for longer than the retention (removed from the code), and names it", async () => {
    const { consumer: removed } = recording("test-purge-removed");
    await drainAll(db(), removed);
    const page = await write("Behind a removed consumer");
    await server.app.dispatcher.flush();
    for (const name of ["test-once", "test-restart", "test-retry", "test-instances", "test-late", "test-woken", "test-polled", "test-always-failing", "test-race", "test-purge-lagging"]) await drainAll(db(), recording(name).consumer);
    const exists = async () => (await sql().query(Prisma.sql`SELECT 1 FROM outbox WHERE area = 'wiki' AND record_id = ${page}`)).length > 0;
    // Backdated: the event and every cursor but the removed one's are as old as a day, as if time had passed.
    await sql().query(Prisma.sql`UPDATE outbox SET occurred_at = occurred_at - interval '2 days' WHERE area = 'wiki' AND record_id = ${page}`);
    await sql().query(Prisma.sql`UPDATE outbox_consumers SET updated_at = updated_at - interval '2 days' WHERE name = 'test-purge-removed'`);
    expect(await purgeDeliveredEvents(db(), 24)).toMatchObject({ abandoned: ["test-purge-removed"] });
    expect(await exists()).toBe(false);
    // As the log line says, deleting its row forgets it.
    await sql().query(Prisma.sql`DELETE FROM outbox_consumers WHERE name = 'test-purge-removed'`);
  });

  it("still waits for a consumer that was idle for long when an event reaches it, even with no retention", async () => {
    const { consumer: idle } = recording("test-purge-idle");
    await drainAll(db(), idle);
    await sql().query(Prisma.sql`UPDATE outbox_consumers SET updated_at = updated_at - interval '2 days' WHERE name = 'test-purge-idle'`);
    const page = await write("Reaching an idle consumer");
    await server.app.dispatcher.flush();
    for (const name of ["test-once", "test-restart", "test-retry", "test-instances", "test-late", "test-woken", "test-polled", "test-always-failing", "test-race", "test-purge-lagging"]) await drainAll(db(), recording(name).consumer);
    const exists = async () => (await sql().query(Prisma.sql`SELECT 1 FROM outbox WHERE area = 'wiki' AND record_id = ${page}`)).length > 0;
    expect(await purgeDeliveredEvents(db(), 0)).toMatchObject({ abandoned: [] });
    expect(await exists()).toBe(true);
    await drainAll(db(), idle);
    await purgeDeliveredEvents(db(), 0);
    expect(await exists()).toBe(false);
  });
});

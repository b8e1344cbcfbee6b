import fs from "node:fs";
import { parse } from "graphql";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../src/generated/prisma/client.js";
import { sqlClientOf } from "../src/db/sql.js";
import { eventCatalogue, outboxInsert } from "../src/common/events.js";
import { OUTBOX_START, readCommittedEvents } from "../src/common/outbox.js";
import { nextIdSql } from "../src/common/write-statements.js";
import { writtenRecordsOf } from "../src/common/written-records.js";
import { clientFaultFromDatabase } from "../src/common/database-errors.js";
import { canonicalJson } from "../src/execution/conditions.js";
import "../src/areas.js";
import { restOperations } from "../rest-facade/table.js";
import { startServer, type Cast, type TestServer } from "./server.js";
import { allEventsReadable } from "./outbox.js";
import { skipUnlessPostgres } from "./postgres-only.js";

// The write path (src/common/write-path.ts, docs/events.md): one transaction per write with its domain
// event; readers of the outbox never skip; retries with an Idempotency-Key are safe; If-Match; PUT never
// loosens privacy.
let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  server = await startServer();
  cast = await server.cast("writers");
});
afterAll(() => server?.close());

const sql = () => sqlClientOf(server.app.db.prisma);
type EventRow = { type: string; record_id: number; actor_id: number | null; scope: string; scope_id: number; visibility: string; published: boolean; changed: string[]; payload: Record<string, unknown> };
const eventsOf = (area: string, id: number) =>
  sql().query<EventRow>(
    Prisma.sql`SELECT type, record_id, actor_id, scope, scope_id, visibility, published, changed, payload FROM outbox WHERE area = ${area} AND record_id = ${id} ORDER BY id`,
  );
// The wiki's events: the activity consumer appends its entries' events whenever it has caught up.
const eventCount = async () => Number((await sql().query<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM outbox WHERE area = 'wiki'`))[0]!.n);

describe("domain events", () => {
  it("docs/events.md lists exactly the declared catalogue", () => {
    const documented = [
      ...fs.readFileSync(new URL("../docs/events.md", import.meta.url), "utf8").matchAll(/^\| `([a-z][a-zA-Z]*\.[a-zA-Z]+)` \| (\w+) \| ([^|]+) \| (.+) \|$/gm),
    ].map(([, type, audience, payload, description]) => ({ type, audience, payload: payload!.trim(), description }));
    // In any order: the document groups events by area as its readers go, `npm run area:new` adds a new area's at the end.
    const byType = (a: { type?: string }, b: { type?: string }) => a.type!.localeCompare(b.type!);
    expect(documented.sort(byType)).toEqual(
      eventCatalogue().map(({ type, area, audience, description }) => ({
        type,
        audience,
        payload: ["id", ...(writtenRecordsOf(area)?.names ?? [])].map((name) => `\`${name}\``).join(", "),
        description,
      })).sort(byType),
    );
  });

  it("every wiki write appends its event with the record's normalised visibility, the changed fields and names only", async () => {
    const created = await server.rest("POST", "/wiki", {
      token: cast.member.token,
      body: { title: "Evented", pagetext: "A body that must not travel.", state: 1, access: 4, scope: "group", scope_id: cast.groupId },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    const patched = await server.rest("PATCH", `/wiki/${id}`, { token: cast.member.token, body: { title: "Evented again" } });
    expect(patched.status).toBe(200);
    expect((await server.rest("PATCH", `/wiki/${id}`, { token: cast.member.token, body: {} })).status).toBe(200); // changes nothing: no event
    expect((await server.rest("PATCH", `/wiki/${id}`, { token: cast.member.token, body: { pagetext: "New text." } })).status).toBe(200);
    expect((await server.rest("DELETE", `/wiki/${id}`, { token: cast.member.token })).status).toBe(204);

    const events = await eventsOf("wiki", id);
    expect(events.map((event) => event.type)).toEqual(["wiki.pageCreated", "wiki.pageUpdated", "wiki.pageUpdated", "wiki.pageDeleted"]);
    for (const event of events) {
      expect(event).toMatchObject({ record_id: id, actor_id: cast.member.id, scope: "group", scope_id: cast.groupId, visibility: "private", published: true });
      expect(JSON.stringify(event.payload)).not.toContain("must not travel");
      expect(Object.keys(event.payload).sort()).toEqual(["id", "pagename", "title"]);
    }
    expect(events[1]!.changed).toEqual(["title"]);
    expect(events[2]!.changed).toEqual(["currentRevisionId"]);
    expect(events[0]!.changed).toEqual(expect.arrayContaining(["title", "pagename", "access", "scope", "scopeId", "state"]));
  });

  it("blog and citation writes append theirs", async () => {
    const entry = await server.rest("POST", "/blog", { token: cast.alice.token, body: { scope: "site", scope_id: 0, title: "Evented entry", content: "Body.", access: 2 } });
    expect(entry.status).toBe(201);
    await server.rest("PATCH", `/blog/${entry.body.id}`, { token: cast.alice.token, body: { state: 1 } });
    const blogEvents = await eventsOf("blog", entry.body.id);
    expect(blogEvents.map((event) => [event.type, event.visibility, event.published, event.changed])).toEqual([
      ["blog.entryCreated", "registered", false, expect.any(Array)],
      ["blog.entryUpdated", "registered", true, ["state"]],
    ]);

    const made = await fetch(new URL("/graphql", server.url), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${cast.admin.token}` },
      body: JSON.stringify({ query: 'mutation { createCitation(input: { title: "Evented citation", year: 2020 }) { id } }' }),
    }).then((response) => response.json());
    const citationId = Number(made.data.createCitation.id);
    const citationEvents = await eventsOf("citations", citationId);
    expect(citationEvents).toEqual([expect.objectContaining({ type: "citations.citationCreated", scope: "site", scope_id: 0, visibility: "public", actor_id: cast.admin.id })]);
  });

  it("a refused or failed write leaves neither its change nor its event", async () => {
    const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Guarded", pagetext: "Text.", state: 1, pagename: "Guarded" } });
    const before = await eventCount();
    // 403 on the locked row, 400 from validation, 409 from the unique name, 404 for a missing record.
    expect((await server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.bob.token, body: { title: "Taken over" } })).status).toBe(403);
    expect((await server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.alice.token, body: { state: 7 } })).status).toBe(400);
    expect((await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Twin", pagetext: "Text.", pagename: "Guarded" } })).status).toBe(409);
    const other = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Other", pagetext: "Text.", pagename: "Other", state: 1 } });
    const afterOther = await eventCount();
    expect(afterOther).toBe(before + 1);
    expect((await server.rest("PATCH", `/wiki/${other.body.id}`, { token: cast.alice.token, body: { pagename: "Guarded" } })).status).toBe(409);
    expect((await server.rest("DELETE", "/wiki/999999", { token: cast.alice.token })).status).toBe(404);
    expect(await eventCount()).toBe(afterOther);
    expect((await server.rest("GET", `/wiki/${page.body.id}`)).body.title).toBe("Guarded");
    expect((await server.rest("GET", `/wiki/${other.body.id}`)).body.pagename).toBe("Other");
  });
});

describe("a write the database rolled back to break a deadlock or a serialization conflict", () => {
  it("is 503 with Retry-After, not a 500: nothing was kept, and the same request again may succeed", () => {
    for (const code of ["40P01", "40001"]) expect(clientFaultFromDatabase(Object.assign(new Error("rolled back"), { code }))?.status, code).toBe(503);
  });
});

describe("ids taken before an insert (nextIdSql)", () => {
  it("name every table's id sequence as PostgreSQL named it", async () => {
    const tables = await sql().query<{ table_name: string; sequence: string | null }>(
      Prisma.sql`SELECT table_name, pg_get_serial_sequence(quote_ident(table_name), 'id') AS sequence FROM information_schema.columns
                 WHERE table_schema = 'public' AND column_name = 'id' AND column_default LIKE 'nextval(%'`,
    );
    expect(tables.length).toBeGreaterThan(5);
    for (const { table_name, sequence } of tables) expect(sequence).toBe(`public.${table_name}_id_seq`);
    const ctx = { db: server.app.db.prisma } as never;
    const [row] = await sql().query<{ page: number; revision: number }>(Prisma.sql`SELECT ${nextIdSql(ctx, "WikiPage")} AS page, ${nextIdSql(ctx, "WikiRevision")} AS revision`);
    expect(row).toEqual({ page: expect.any(Number), revision: expect.any(Number) });
  });
});

describe("a create's answer", () => {
  // A create answers from its own statement (createRecord's `answer`): what it answers must be what a read
  // right after it answers, the ETag included, for every area and for relations the statement inserted.
  const sameAsRead = async (path: string, token: string, body: Record<string, unknown>, statements = 1) => {
    const created = await server.recordQueries(() => server.rest("POST", path, { token, body }));
    expect(created.result.status, JSON.stringify(created.result.body)).toBe(201);
    expect(created.queries, created.queries.join("\n")).toHaveLength(statements);
    const read = await server.rest("GET", `${path}/${created.result.body.id}`, { token });
    expect(read.status).toBe(200);
    for (const [key, value] of Object.entries(created.result.body)) expect([key, value]).toEqual([key, read.body[key]]);
    expect(created.result.headers.get("etag")).toBeTruthy();
    expect(created.result.headers.get("etag")).toBe(read.headers.get("etag"));
  };

  it("is one statement answering what a read answers: wiki (its first revision inserted by the same statement), blog, announcements", async () => {
    await sameAsRead("/wiki", cast.member.token, { title: "Answered page", pagetext: "First text.", summary: "first", scope: "group", scope_id: cast.groupId, access: 4 });
    await sameAsRead("/wiki", cast.admin.token, { title: "Answered by an administrator", pagetext: "Text.", created_by: cast.alice.id, state: 0 }, 2); // and whether created_by exists
    await sameAsRead("/blog", cast.alice.token, { scope: "site", scope_id: 0, title: "Answered entry", content: "Body.", access: 2, state: 0 });
    await sameAsRead(`/groups/${cast.groupId}/announcements`, cast.manager.token, { title: "Answered announcement", content: "News.", priority: 2, sticky: 1 }, 2); // and the group its path names
  });

  it("over GraphQL too, relations included; a selection beyond to-one relations is read after the create", async () => {
    const selection = "id title pagename pagetext revisionCount createdBy { username } version { id version pagetext summary createdById }";
    const created = await server.recordQueries(() =>
      server.graphql(parse(`mutation { createWikiPage(input: { title: "GraphQL answered", pagetext: "Its text.", summary: "s" }) { ${selection} } }`) as TypedDocumentNode<any, any>, {}, cast.alice.token),
    );
    expect(created.result.errors).toEqual([]);
    expect(created.queries, created.queries.join("\n")).toHaveLength(1);
    const page = created.result.data.createWikiPage;
    expect(page.version).toMatchObject({ version: 1, pagetext: "Its text.", summary: "s", createdById: cast.alice.id });
    const read = await server.graphql(parse(`query($id: ID!) { wikiPage(id: $id) { ${selection} } }`) as TypedDocumentNode<any, any>, { id: page.id }, cast.alice.token);
    expect(read.data.wikiPage).toEqual(page);

    const withList = await server.recordQueries(() =>
      server.graphql(parse(`mutation { createWikiPage(input: { title: "With its revisions", pagetext: "Text." }) { id revisions { version pagetext } } }`) as TypedDocumentNode<any, any>, {}, cast.alice.token),
    );
    expect(withList.result.errors).toEqual([]);
    expect(withList.result.data.createWikiPage.revisions).toEqual([{ version: 1, pagetext: "Text." }]);

    const citation = await server.recordQueries(() =>
      server.graphql(parse(`mutation { createCitation(input: { title: "Answered citation", authors: ["Curie, Marie"], year: 1903 }) { id title authors year created } }`) as TypedDocumentNode<any, any>, {}, cast.admin.token),
    );
    expect(citation.result.errors).toEqual([]);
    expect(citation.queries).toHaveLength(1);
    const readCitation = await server.graphql(parse(`query($id: ID!) { citation(id: $id) { id title authors year created } }`) as TypedDocumentNode<any, any>, { id: citation.result.data.createCitation.id }, cast.admin.token);
    expect(readCitation.data.citation).toEqual(citation.result.data.createCitation);
  });
});

describe("a write that fails after its event was appended", () => {
  it("leaves neither the change nor the event (a statement refused inside the transaction)", async () => {
    // A test-only trigger refuses renaming or deleting a page titled "Doomed…": the delete's event is
    // appended before its DELETE, the update's event in the same statement as its UPDATE.
    await sql().query(Prisma.sql`CREATE FUNCTION test_refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.title LIKE 'Doomed%' AND (TG_OP = 'DELETE' OR NEW.title IS DISTINCT FROM OLD.title) THEN RAISE EXCEPTION 'refused by a test trigger'; END IF;
        RETURN COALESCE(NEW, OLD);
      END $$`);
    await sql().query(Prisma.sql`CREATE TRIGGER test_refuse_doomed BEFORE UPDATE OR DELETE ON wiki_pages FOR EACH ROW EXECUTE FUNCTION test_refuse_doomed()`);
    try {
      const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Doomed page", pagetext: "Text.", state: 1 } });
      expect(page.status).toBe(201);
      const before = await eventCount();
      expect((await server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.alice.token, body: { title: "Doomed and renamed", pagetext: "New." } })).status).toBe(500);
      expect((await server.rest("DELETE", `/wiki/${page.body.id}`, { token: cast.alice.token })).status).toBe(500);
      expect(await eventCount()).toBe(before);
      const stored = await server.rest("GET", `/wiki/${page.body.id}`);
      expect(stored.body).toMatchObject({ title: "Doomed page", revisions: 1, pagetext: "Text." });
    } finally {
      await sql().query(Prisma.sql`DROP TRIGGER test_refuse_doomed ON wiki_pages`);
      await sql().query(Prisma.sql`DROP FUNCTION test_refuse_doomed()`);
    }
  });
});

describe("an event's author (docs/policy-design.md, D13)", () => {
  const authorsOf = (area: string, id: number) =>
    sql().query<{ type: string; author: number | null }>(Prisma.sql`SELECT type, author_id AS author FROM outbox WHERE area = ${area} AND record_id = ${id} ORDER BY id`);

  it("is the record's creator on its created, updated and deleted events, where the creator rule also asks of a parent (forum posts) too", async () => {
    // A wiki page (a plain creator rule), and a forum thread and its reply (the rule asks the reply's thread),
    // each written by the member, changed, and deleted by an administrator.
    const page = await server.rest("POST", "/wiki", { token: cast.member.token, body: { title: "Authored", pagetext: "x", state: 1 } });
    const thread = await server.rest("POST", "/forum", { token: cast.member.token, body: { category_id: 0, title: "Authored thread", comment: "x", state: 1 } });
    const reply = await server.rest("POST", "/forum", { token: cast.member.token, body: { category_id: 0, parent_id: thread.body.id, comment: "a reply", state: 1 } });
    expect([page.status, thread.status, reply.status], JSON.stringify(reply.body)).toEqual([201, 201, 201]);
    expect((await server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.member.token, body: { title: "Authored again" } })).status).toBe(200);
    expect((await server.rest("DELETE", `/wiki/${page.body.id}`, { token: cast.admin.token })).status).toBe(204);
    const removed = await server.graphql(parse("mutation($id: ID!) { deleteForumPost(id: $id) }") as TypedDocumentNode<Record<string, unknown>, Record<string, unknown>>, { id: String(reply.body.id) }, cast.admin.token);
    expect(removed.errors ?? []).toEqual([]);
    const member = cast.member.id;
    expect(await authorsOf("wiki", page.body.id)).toEqual([
      { type: "wiki.pageCreated", author: member },
      { type: "wiki.pageUpdated", author: member },
      { type: "wiki.pageDeleted", author: member },
    ]);
    expect((await authorsOf("forum", thread.body.id)).map((event) => event.author)).toEqual([member]);
    expect(await authorsOf("forum", reply.body.id)).toEqual([
      { type: "forum.postCreated", author: member },
      { type: "forum.postDeleted", author: member },
    ]);
  });
});

describe("reading the outbox", () => {
  it("delivers every committed event once, in (xid, id) order, and a lower id that commits late is delivered, not skipped", async (context) => {
    skipUnlessPostgres(context, "running transactions at the same time", "PGlite runs one transaction at a time");
    await server.app.dispatcher.flush(); // the activity entries of earlier tests' pages, and their events, written first
    let cursor = (await drain(OUTBOX_START)).cursor;
    const insert = (recordId: number) =>
      outboxInsert({ type: "wiki.pageUpdated", area: "wiki", recordId, actorId: null, anonymous: false, scope: "site", scopeId: 0, visibility: "public", published: true, changed: [], payload: {} });

    // A takes the lower id and waits; B takes a higher one and commits first.
    let releaseA!: () => void;
    const aHolds = new Promise<void>((resolve) => (releaseA = resolve));
    let aInserted!: () => void;
    const aHasId = new Promise<void>((resolve) => (aInserted = resolve));
    const a = sql().transaction(async (tx) => {
      const [row] = await tx.query<{ id: string }>(insert(900001));
      aInserted();
      await aHolds;
      return row!.id;
    });
    await aHasId;
    const bId = await sql().transaction(async (tx) => (await tx.query<{ id: string }>(insert(900002)))[0]!.id);

    const whileAOpen = await readCommittedEvents(sql(), cursor);
    expect(whileAOpen.events.map((event) => event.recordId)).not.toContain(900002); // B waits behind A's transaction
    cursor = whileAOpen.cursor;
    releaseA();
    const aId = await a;
    expect(BigInt(aId)).toBeLessThan(BigInt(bId));
    await allEventsReadable(sql()); // no other database's transaction still holding the horizon back

    const afterA = await drain(cursor);
    expect(afterA.events.map((event) => event.recordId)).toEqual([900001, 900002]);
    expect((await readCommittedEvents(sql(), afterA.cursor)).events).toEqual([]);
  });

  it("reads in the transactions' numeric order where their ids change length (99, 100, 101): none skipped, none twice", async () => {
    // Transaction ids as text sort "100" < "101" < "99": a batch ordered so took 100 and 101 first and moved its
    // cursor past 99, which was then never read (and a wider batch read events twice).
    const inserted = await sql().query<{ id: string }>(
      Prisma.sql`INSERT INTO outbox (xid, type, area, record_id, actor_id, anonymous, scope, scope_id, visibility, published, audience, changed, payload)
                 SELECT x, 'wiki.pageUpdated', 'wiki', 900100 + x, NULL, false, 'site', 0, 'public', true, 'readers', '{}', '{}' FROM unnest(ARRAY[101, 99, 100]::bigint[]) AS x
                 RETURNING id::text AS id`,
    );
    const ours = new Set(inserted.map((row) => row.id));
    try {
      const read: { xid: string; id: string }[] = [];
      let cursor = { xid: "98", id: "0" };
      while (!read.some((event) => BigInt(event.xid) > 101n)) {
        const page = await readCommittedEvents(sql(), cursor, 2);
        if (!page.events.length) break;
        read.push(...page.events);
        cursor = page.cursor;
      }
      const numeric = (event: { xid: string; id: string }) => [BigInt(event.xid), BigInt(event.id)] as const;
      const ordered = read.every((event, index) => {
        if (index === 0) return true;
        const [[xid, id], [before, beforeId]] = [numeric(event), numeric(read[index - 1]!)];
        return xid > before || (xid === before && id > beforeId);
      });
      expect(ordered, JSON.stringify(read.map((event) => [event.xid, event.id]))).toBe(true);
      expect(read.filter((event) => ours.has(event.id)).map((event) => event.xid)).toEqual(["99", "100", "101"]);
    } finally {
      await sql().query(Prisma.sql`DELETE FROM outbox WHERE id = ANY(${[...ours]}::bigint[])`);
    }
  });

  it("pages through events with its cursor", async () => {
    const all = await drain(OUTBOX_START);
    const ids = all.events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const first = await readCommittedEvents(sql(), OUTBOX_START, 2);
    const second = await readCommittedEvents(sql(), first.cursor, 2);
    expect([...first.events, ...second.events].map((event) => event.id)).toEqual(ids.slice(0, 4));
  });
});

async function drain(from: typeof OUTBOX_START) {
  const events = [];
  let cursor = from;
  for (;;) {
    const page = await readCommittedEvents(sql(), cursor, 500);
    if (!page.events.length) return { events, cursor };
    events.push(...page.events);
    cursor = page.cursor;
  }
}

describe("a database that drops connections under writes", () => {
  it("answers 503 with Retry-After and keeps nothing, or, when the connection broke during the commit, says the outcome is unknown; never a bare 500", async (context) => {
    skipUnlessPostgres(context, "dropping connections", "PGlite has no server connections");
    let dropping = true;
    const dropper = (async () => {
      while (dropping) {
        await sql()
          .query(Prisma.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
          .catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();
    const answers: { title: string; status: number; body: any; retryAfter: string | null }[] = [];
    for (let round = 0; round < 10; round++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, async (_, index) => {
            const title = `Dropped ${round}-${index}`;
            const answer = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title, pagetext: "Text.", state: 1 } }).catch((error: Error) => ({
              status: 0,
              body: { message: error.message },
              headers: new Headers(),
            }));
            return { title, status: answer.status, body: answer.body, retryAfter: answer.headers.get("retry-after") };
          }),
        )),
      );
    }
    dropping = false;
    await dropper;
    const statuses = answers.reduce<Record<number, number>>((counted, answer) => ({ ...counted, [answer.status]: (counted[answer.status] ?? 0) + 1 }), {});
    console.log(`dropped connections under 200 creates: ${JSON.stringify(statuses)}`);
    expect(statuses[503] ?? 0, JSON.stringify(statuses)).toBeGreaterThan(0);
    for (const answer of answers) {
      expect([201, 503, 500], JSON.stringify(answer)).toContain(answer.status);
      if (answer.status === 503) expect(answer.retryAfter).toBe("1");
      if (answer.status === 500) expect(answer.body.message).toMatch(/whether it was made is unknown/);
    }
    // Once the database answers again: every 201 was kept, nothing of a 503 was.
    const stored = new Set(
      (await sql().query<{ title: string }>(Prisma.sql`SELECT title FROM wiki_pages WHERE title LIKE 'Dropped %'`)).map((row) => row.title),
    );
    for (const answer of answers) {
      if (answer.status === 201) expect(stored.has(answer.title), answer.title).toBe(true);
      if (answer.status === 503) expect(stored.has(answer.title), answer.title).toBe(false);
    }
  });
});

describe("Idempotency-Key", () => {
  it("answers a retried POST with the first answer and makes no second record", async () => {
    const body = { title: "Once only", pagetext: "Text.", state: 1 };
    const headers = { "Idempotency-Key": "create-once-1" };
    const first = await server.rest("POST", "/wiki", { token: cast.alice.token, body, headers });
    expect(first.status).toBe(201);
    const again = await server.rest("POST", "/wiki", { token: cast.alice.token, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    // The replay names the version the first answer named.
    expect(first.headers.get("etag")).toMatch(/^"\d+"$/);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    const listed = await server.rest("GET", "/wiki/list", { query: { search: "Once only" } });
    expect(listed.body.total).toBe(1);

    // Another caller's key of the same name is theirs.
    expect((await server.rest("POST", "/wiki", { token: cast.bob.token, body, headers })).body.id).not.toBe(first.body.id);
    // The same key with another body is refused and writes nothing.
    const other = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { ...body, title: "Something else" }, headers });
    expect(other.status).toBe(422);
    expect(other.body.errors[0].parameter).toBe("Idempotency-Key");
    expect((await server.rest("GET", "/wiki/list", { query: { search: "Something else" } })).body.total).toBe(0);
  });

  it("stores the answer with the key in the write's own transaction, for a create of every area", async () => {
    // The key's row and the record's row were last written by one transaction (their xmin): an answer is
    // never kept without its write, nor a write without its answer (stored after commit, a failure there
    // left a key that told its retry only which record was made).
    const thread = await server.rest("POST", "/forum", { token: cast.alice.token, body: { category_id: 0, title: "A thread keyed replies go to", comment: "x", state: 1 } });
    const creates: [string, string, string, Record<string, unknown>][] = [
      ["wiki_pages", "/wiki", cast.member.token, { title: "Keyed page", pagetext: "Text.", scope: "group", scope_id: cast.groupId }],
      // A thread and a reply: their answers read the forum's counts, in the key's transaction too.
      ["forum_posts", "/forum", cast.member.token, { category_id: 0, title: "Keyed thread", comment: "Text.", state: 1 }],
      ["forum_posts", "/forum", cast.member.token, { category_id: 0, thread: String(thread.body.id), comment: "Keyed reply", state: 1 }],
      ["blog_entries", "/blog", cast.alice.token, { scope: "site", scope_id: 0, title: "Keyed entry", content: "Text." }],
      ["groups", "/groups", cast.alice.token, { cn: "keyedgroup", title: "Keyed group", join_policy: "open", discoverability: "visible" }],
      ["announcements", `/groups/${cast.groupId}/announcements`, cast.manager.token, { title: "Keyed news", content: "Text." }],
      ["wiki_pages", `/groups/${cast.groupId}/wiki`, cast.member.token, { title: "Keyed group page", pagetext: "Text." }],
      ["users", "/members", cast.admin.token, { username: "keyeduser", email: "keyeduser@example.test", password: "a-long-keyed-password-81", name: "Keyed user" }],
    ];
    for (const [table, path, token, body] of creates) {
      const key = `same-transaction-${path}-${JSON.stringify(body).length}`;
      const first = await server.rest("POST", path, { token, body, headers: { "Idempotency-Key": key } });
      expect(first.status, `${path}: ${JSON.stringify(first.body)}`).toBe(201);
      const [written] = await sql().query<{ record: string; key: string; result: string }>(
        Prisma.sql`SELECT r.xmin::text AS record, k.xmin::text AS key, k.result::text AS result FROM ${Prisma.raw(table)} r, idempotency_keys k WHERE r.id = ${first.body.id ?? first.body.gidNumber} AND k.key = ${key}`,
      );
      expect(written!.key, path).toBe(written!.record);
      // The execution result, which the retry's surface renders again as it rendered the first answer.
      expect(Object.keys(JSON.parse(written!.result)), path).toEqual(["data"]);
      const again = await server.rest("POST", path, { token, body, headers: { "Idempotency-Key": key } });
      expect([again.status, again.body]).toEqual([201, first.body]);
    }
  });

  it("leaves a REST PUT, PATCH or DELETE to repeat as it is: the key is read on POST rows only, as documented", async () => {
    const created = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Unkeyed change", pagetext: "Text.", state: 1 } });
    const headers = { "Idempotency-Key": "not-on-patch" };
    for (const title of ["Unkeyed change 2", "Unkeyed change 3"]) {
      const changed = await server.rest("PATCH", `/wiki/${created.body.id}`, { token: cast.alice.token, body: { title }, headers });
      expect([changed.status, changed.body.title, changed.headers.get("idempotent-replayed")]).toEqual([200, title, null]);
    }
    expect(await sql().query(Prisma.sql`SELECT 1 FROM idempotency_keys WHERE key = 'not-on-patch'`)).toEqual([]);
  });

  it("keeps the answer of a keyed mutation outside the write path too: a webhook endpoint's change is answered once", async () => {
    // A literal public address: nothing resolves it. Site endpoints are the administrators'.
    const made = await graphqlWith(`mutation { createWebhookEndpoint(input: { url: "https://93.184.216.34/once", eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 }) { endpoint { id } } }`, {}, cast.admin.token, {});
    const id = made.body.data!.createWebhookEndpoint.endpoint.id as string;
    const query = `mutation { updateWebhookEndpoint(id: "${id}", input: { description: "Changed once" }) { id description } }`;
    const headers = { "Idempotency-Key": "graphql-webhook-once" };
    const first = await graphqlWith(query, {}, cast.admin.token, headers);
    const again = await graphqlWith(query, {}, cast.admin.token, headers);
    expect(first.body.errors, first.text).toBeUndefined();
    expect([again.text, again.headers.get("idempotent-replayed")]).toEqual([first.text, "true"]);
  });

  it("wakes the webhook senders once a keyed operation has committed, not from inside its transaction", async () => {
    const made = await graphqlWith(`mutation { createWebhookEndpoint(input: { url: "https://93.184.216.34/woken", eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 }) { endpoint { id } } }`, {}, cast.admin.token, {});
    const id = made.body.data!.createWebhookEndpoint.endpoint.id as string;
    expect((await graphqlWith(`mutation { updateWebhookEndpoint(id: "${id}", input: { enabled: false }) { id } }`, {}, cast.admin.token, {})).body.errors).toBeUndefined();
    // Enabling one wakes the senders: from inside the key's transaction that wake-up's statement was refused,
    // and the operation with it (400 naming the key).
    const enabled = await graphqlWith(`mutation { updateWebhookEndpoint(id: "${id}", input: { enabled: true }) { id enabled } }`, {}, cast.admin.token, { "Idempotency-Key": "graphql-enable-webhook" });
    expect(enabled.body.errors, enabled.text).toBeUndefined();
    expect(enabled.body.data!.updateWebhookEndpoint.enabled).toBe(true);
  });

  it("takes no key for an operation that answers a secret shown once, which would be kept in clear for a day", async () => {
    const query = `mutation { createWebhookEndpoint(input: { url: "https://93.184.216.34/secret-once", eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 }) { endpoint { id } secret } }`;
    const refused = await graphqlWith(query, {}, cast.admin.token, { "Idempotency-Key": "graphql-secret" });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errors![0]!.extensions.errors[0].parameter).toBe("Idempotency-Key");
    expect(await sql().query(Prisma.sql`SELECT 1 FROM webhook_endpoints WHERE url = 'https://93.184.216.34/secret-once'`)).toEqual([]);
    expect(await sql().query(Prisma.sql`SELECT 1 FROM idempotency_keys WHERE key = 'graphql-secret'`)).toEqual([]);
  });

  it("takes no key for an operation that runs plugin handlers apart from it (400 naming the key); without one it runs", async () => {
    const query = `mutation { triggerPluginEvent(event: "content.counts") }`;
    const refused = await graphqlWith(query, {}, cast.alice.token, { "Idempotency-Key": "graphql-trigger" });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errors![0]!.extensions.errors[0].parameter).toBe("Idempotency-Key");
    // Said before anything ran, not learnt from a handler's refused statement.
    expect(refused.body.errors![0]!.message).toContain("plugin handlers");
    expect((await graphqlWith(query, {}, cast.alice.token, {})).body.errors).toBeUndefined();
  });

  it("keeps an answer of at most 1 MB for a retry: a larger one is undone and refused, naming the key", async () => {
    const text = "y".repeat(700_000);
    const query = `mutation Big($text: String!) { createWikiPage(input: { title: "Kept too large", pagetext: $text, state: 1 }) { a: pagetext b: pagetext } }`;
    const refused = await graphqlWith(query, { text }, cast.alice.token, { "Idempotency-Key": "kept-too-large" });
    expect(refused.status, refused.text.slice(0, 300)).toBe(400);
    expect(refused.body.errors![0]!.extensions.errors[0].parameter).toBe("Idempotency-Key");
    expect((await server.rest("GET", "/wiki/list", { query: { search: "Kept too large" } })).body.total).toBe(0);
    // Without the key it runs.
    expect((await graphqlWith(query, { text }, cast.alice.token, {})).body.errors).toBeUndefined();
  });

  it("refuses a keyed operation of a caller who holds 1,000 live keys (429 naming the key); keys past their day do not count", async () => {
    const holder = await server.user();
    const insertKeys = (hoursAgo: number, count: number, prefix: string) =>
      sql().query(Prisma.sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, created, result)
        SELECT ${holder.id}, ${prefix} || n, 'x', (now() AT TIME ZONE 'UTC') - make_interval(hours => ${hoursAgo}), '{}'::json FROM generate_series(1, ${count}) AS n`);
    await insertKeys(25, 5, "old-");
    await insertKeys(1, 999, "live-");
    const body = { title: "One key more", pagetext: "Text.", state: 1 };
    expect((await server.rest("POST", "/wiki", { token: holder.token, body, headers: { "Idempotency-Key": "the-thousandth" } })).status).toBe(201);
    const refused = await server.rest("POST", "/wiki", { token: holder.token, body: { ...body, title: "One key too many" }, headers: { "Idempotency-Key": "the-thousand-and-first" } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    expect(refused.body.errors[0].parameter).toBe("Idempotency-Key");
    // A retry of a key held is still answered.
    expect((await server.rest("POST", "/wiki", { token: holder.token, body, headers: { "Idempotency-Key": "the-thousandth" } })).headers.get("idempotent-replayed")).toBe("true");

    // And so many bytes of answers: 16 MB held in a few keys is as many as 1,000.
    const heavy = await server.user();
    await sql().query(Prisma.sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, created, result, result_bytes)
      VALUES (${heavy.id}, 'heavy', 'x', (now() AT TIME ZONE 'UTC'), '{}'::json, ${16 * 1024 * 1024})`);
    const full = await server.rest("POST", "/wiki", { token: heavy.token, body: { ...body, title: "Over the bytes" }, headers: { "Idempotency-Key": "over-the-bytes" } });
    expect(full.status, JSON.stringify(full.body)).toBe(429);
    // Short of the budget, an answer that would pass it is undone and refused too, once its size is known.
    const nearly = await server.user();
    await sql().query(Prisma.sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, created, result, result_bytes)
      VALUES (${nearly.id}, 'nearly', 'x', (now() AT TIME ZONE 'UTC'), '{}'::json, ${16 * 1024 * 1024 - 1000})`);
    const passing = await server.rest("POST", "/wiki", { token: nearly.token, body: { ...body, title: "Past the bytes", pagetext: "z".repeat(5000) }, headers: { "Idempotency-Key": "past-the-bytes" } });
    expect(passing.status, JSON.stringify(passing.body)).toBe(429);
    expect((await server.rest("GET", "/wiki/list", { query: { search: "Past the bytes" } })).body.total).toBe(0);
  });

  it("tells a retry of a key answered before results were kept that it was, never writing twice (409)", async () => {
    const legacy = await server.user();
    await sql().query(Prisma.sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, record_id, created, status, answer)
      VALUES (${legacy.id}, 'from-before', 'an-older-fingerprint', 4242, (now() AT TIME ZONE 'UTC'), 201, '{"id":4242}')`);
    const retry = await server.rest("POST", "/wiki", { token: legacy.token, body: { title: "From before", pagetext: "Text.", state: 1 }, headers: { "Idempotency-Key": "from-before" } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(409);
    expect(retry.body.message).toContain("record 4242");
    expect((await server.rest("GET", "/wiki/list", { query: { search: "From before" } })).body.total).toBe(0);
  });

  it("refuses a keyed request whose body nests deeper than any input (400 naming the key), before walking it", async () => {
    // Written by hand: a body nested far deeper than JSON.stringify's own recursion goes.
    const depth = 20_000;
    const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const query = JSON.stringify("mutation Create($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id title } }");
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${cast.alice.token}`, "Idempotency-Key": "deep-variables" },
      body: `{"query":${query},"variables":{"input":{"title":"Deep","pagetext":"x","state":1},"extra":${deep}}}`,
    });
    const text = await response.text();
    expect(response.status, text.slice(0, 300)).toBe(400);
    expect(JSON.parse(text).errors[0].extensions.errors[0].parameter).toBe("Idempotency-Key");
  });

  it("takes a retry whose body has the same fields in another order for the same request", async () => {
    const body = { title: "Fields in order", pagetext: "Text.", state: 1, scope: "group", scope_id: cast.groupId };
    const headers = { "Idempotency-Key": "fields-in-another-order" };
    const first = await server.rest("POST", "/wiki", { token: cast.member.token, body, headers });
    expect(first.status).toBe(201);
    const reordered = { scope_id: cast.groupId, scope: "group", state: 1, pagetext: "Text.", title: "Fields in order" };
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(body));
    const again = await server.rest("POST", "/wiki", { token: cast.member.token, body: reordered, headers });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    // Nested objects too; an array's order still counts.
    expect(canonicalJson({ b: { d: 1, c: [2, { f: 1, e: 0 }] }, a: null })).toBe(canonicalJson({ a: null, b: { c: [2, { e: 0, f: 1 }], d: 1 } }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });

  it("keeps no key when the write is refused, so a corrected retry goes through", async () => {
    const headers = { "Idempotency-Key": "refused-then-fixed" };
    const refused = await server.rest("POST", "/blog", { token: cast.alice.token, body: { scope: "group", scope_id: cast.groupId, title: "Not mine", content: "c" }, headers });
    expect(refused.status).toBe(403);
    const stored = await sql().query(Prisma.sql`SELECT 1 FROM idempotency_keys WHERE key = 'refused-then-fixed'`);
    expect(stored).toEqual([]);
  });

  it("writes one record for parallel requests with one key", async () => {
    const body = { title: "Raced once", pagetext: "Text.", state: 1 };
    const headers = { "Idempotency-Key": "parallel-1" };
    const answers = await Promise.all([1, 2, 3].map(() => server.rest("POST", "/wiki", { token: cast.alice.token, body, headers })));
    expect(answers.every((answer) => [201, 409].includes(answer.status)), JSON.stringify(answers.map((answer) => [answer.status, answer.body]))).toBe(true);
    expect((await server.rest("GET", "/wiki/list", { query: { search: "Raced once" } })).body.total).toBe(1);
  });

  it("refuses a malformed key", async () => {
    const answer = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "x", pagetext: "y" }, headers: { "Idempotency-Key": "has space" } });
    expect(answer.status).toBe(400);
  });
});

describe("If-Match", () => {
  it("writes only at the version the caller read; a stale version is 412 and changes nothing", async () => {
    const created = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Versioned page", pagetext: "One.", state: 1 } });
    const read = await server.rest("GET", `/wiki/${created.body.id}`);
    const etag = read.headers.get("etag")!;
    expect(etag).toMatch(/^"\d+"$/);
    expect(created.headers.get("etag")).toBe(etag);

    const changed = await server.rest("PATCH", `/wiki/${created.body.id}`, { token: cast.alice.token, body: { title: "Versioned page 2" }, headers: { "If-Match": etag } });
    expect(changed.status).toBe(200);
    const newer = changed.headers.get("etag")!;
    expect(newer).not.toBe(etag);

    for (const [method, body] of [["PUT", { title: "Lost update", pagetext: "Two." }], ["PATCH", { title: "Lost update" }], ["DELETE", undefined]] as const) {
      const stale = await server.rest(method, `/wiki/${created.body.id}`, { token: cast.alice.token, body, headers: { "If-Match": etag } });
      expect(stale.status, method).toBe(412);
    }
    const now = await server.rest("GET", `/wiki/${created.body.id}`);
    expect(now.body.title).toBe("Versioned page 2");
    expect(now.headers.get("etag")).toBe(newer);
    // An empty If-Match names no version: no condition (a client's blank default header), as before.
    expect((await server.rest("PATCH", `/wiki/${created.body.id}`, { token: cast.alice.token, body: { title: "Versioned page 3" }, headers: { "If-Match": "" } })).status).toBe(200);
    const current = (await server.rest("GET", `/wiki/${created.body.id}`)).headers.get("etag")!;
    expect((await server.rest("DELETE", `/wiki/${created.body.id}`, { token: cast.alice.token, headers: { "If-Match": `"1", ${current}` } })).status).toBe(204);
  });
});

/** A GraphQL request with headers of its own (Idempotency-Key, If-Match), over HTTP. */
async function graphqlWith(query: string, variables: Record<string, unknown>, token: string | undefined, headers: Record<string, string>) {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as { data?: Record<string, any> | null; errors?: { message: string; extensions: Record<string, any> }[] } };
}

describe("GraphQL: Idempotency-Key and If-Match, as on REST (one execution core)", () => {
  const CREATE = "mutation Create($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id title } }";
  const pagesTitled = async (title: string) => (await server.rest("GET", "/wiki/list", { query: { search: title } })).body.total as number;

  it("answers a retried mutation with the first answer and makes no second record; another body is 422", async () => {
    const input = { title: "GraphQL once", pagetext: "Text.", state: 1 };
    const headers = { "Idempotency-Key": "graphql-once-1" };
    const first = await graphqlWith(CREATE, { input }, cast.alice.token, headers);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data!.createWikiPage.title).toBe("GraphQL once");
    expect(first.headers.get("etag")).toMatch(/^"\d+"$/);
    const again = await graphqlWith(CREATE, { input }, cast.alice.token, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(await pagesTitled("GraphQL once")).toBe(1);

    const other = await graphqlWith(CREATE, { input: { ...input, title: "GraphQL twice" } }, cast.alice.token, headers);
    expect(other.status).toBe(422);
    expect(other.body.errors![0]!.extensions.errors[0].parameter).toBe("Idempotency-Key");
    expect(await pagesTitled("GraphQL twice")).toBe(0);
    // The same key on REST is another request (its path and body): 422 too, never the GraphQL answer.
    expect((await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "GraphQL once", pagetext: "Text." }, headers })).status).toBe(422);
  });

  it("writes one record for parallel mutations with one key; the others are 409 naming the key", async () => {
    const headers = { "Idempotency-Key": "graphql-parallel-1" };
    const answers = await Promise.all([1, 2, 3].map(() => graphqlWith(CREATE, { input: { title: "GraphQL raced once", pagetext: "Text.", state: 1 } }, cast.alice.token, headers)));
    const shown = JSON.stringify(answers.map((answer) => [answer.status, answer.text]));
    for (const answer of answers) {
      if (answer.body.errors) {
        expect(answer.status, shown).toBe(409);
        expect(answer.body.errors[0]!.extensions.errors[0].parameter, shown).toBe("Idempotency-Key");
      } else expect(answer.status, shown).toBe(200);
    }
    expect(answers.filter((answer) => answer.status === 200).length, shown).toBeGreaterThanOrEqual(1);
    expect(await pagesTitled("GraphQL raced once")).toBe(1);
  });

  it("refuses a keyed answer over the size limit before it commits: nothing written, no key kept", async () => {
    const text = "x".repeat(900_000);
    const creates = ["A", "B", "C", "D", "E"].map((name) => `${name.toLowerCase()}: createWikiPage(input: { title: "Too big to answer ${name}", pagetext: $text, state: 1 }) { pagetext }`);
    const answer = await graphqlWith(`mutation Big($text: String!) { ${creates.join(" ")} }`, { text }, cast.alice.token, { "Idempotency-Key": "graphql-too-big" });
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect(answer.body.errors![0]!.message).toMatch(/larger than 4 MB/);
    expect(await pagesTitled("Too big to answer")).toBe(0);
    expect(await sql().query(Prisma.sql`SELECT 1 FROM idempotency_keys WHERE key = 'graphql-too-big'`)).toEqual([]);
  });

  it("gives a record's answer replaced for its size no ETag", async () => {
    const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Five large revisions", pagetext: "1".repeat(900_000), state: 1 } });
    for (const digit of ["2", "3", "4", "5"]) {
      expect((await server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.alice.token, body: { pagetext: digit.repeat(900_000) } })).status).toBe(200);
    }
    const read = (fields: string) => graphqlWith(`query Read($id: ID!) { wikiPage(id: $id) { ${fields} } }`, { id: String(page.body.id) }, undefined, {});
    expect((await read("id")).headers.get("etag")).toMatch(/^"\d+"$/);
    const big = await read("revisions(limit: 5) { pagetext }");
    expect(big.status, big.text.slice(0, 300)).toBe(400);
    expect(big.headers.get("etag")).toBeNull();
  });

  it("is all or nothing: an error in any mutation undoes every write of the request and keeps no key", async () => {
    const query = `mutation Two($input: CreateWikiPageInput!) {
      first: createWikiPage(input: $input) { id }
      second: updateWikiPage(id: 999999, input: { title: "Nowhere" }) { id }
    }`;
    const headers = { "Idempotency-Key": "graphql-all-or-nothing" };
    const answer = await graphqlWith(query, { input: { title: "Undone with its sibling", pagetext: "Text.", state: 1 } }, cast.alice.token, headers);
    expect(answer.body.errors![0]!.extensions.code, answer.text).toBe("NOT_FOUND");
    expect(answer.body.data ?? null).toBeNull();
    expect(await pagesTitled("Undone with its sibling")).toBe(0);
    expect(await sql().query(Prisma.sql`SELECT 1 FROM idempotency_keys WHERE key = 'graphql-all-or-nothing'`)).toEqual([]);
    // Without the key the first mutation stands, as GraphQL runs mutations one after the other.
    await graphqlWith(query, { input: { title: "Kept without a key", pagetext: "Text.", state: 1 } }, cast.alice.token, {});
    expect(await pagesTitled("Kept without a key")).toBe(1);
  });

  it("says so, at once, when part of a keyed operation would be read outside its transaction", async () => {
    const revoke = await graphqlWith("mutation { revokeOtherSessions }", {}, cast.alice.token, { "Idempotency-Key": "graphql-outside" });
    expect(revoke.status, revoke.text).toBe(400);
    expect(revoke.body.errors![0]!.extensions.errors[0].parameter).toBe("Idempotency-Key");
    // And it runs without the key.
    expect((await graphqlWith("mutation { revokeOtherSessions }", {}, cast.alice.token, {})).body.errors).toBeUndefined();
  });

  it("takes If-Match for one mutation of one record: a stale version fails and changes nothing; elsewhere it is 400", async () => {
    const created = await graphqlWith(CREATE, { input: { title: "GraphQL versioned", pagetext: "One.", state: 1 } }, cast.alice.token, {});
    const id = created.body.data!.createWikiPage.id as string;
    const read = await graphqlWith("query Read($id: ID!) { wikiPage(id: $id) { id title } }", { id }, undefined, {});
    const etag = read.headers.get("etag")!;
    expect(etag).toMatch(/^"\d+"$/);
    expect(etag).toBe((await server.rest("GET", `/wiki/${id}`)).headers.get("etag"));
    const UPDATE = "mutation Update($id: ID!, $title: String!) { updateWikiPage(id: $id, input: { title: $title }) { id title } }";
    const changed = await graphqlWith(UPDATE, { id, title: "GraphQL versioned 2" }, cast.alice.token, { "If-Match": etag });
    expect(changed.body.errors, changed.text).toBeUndefined();
    expect(changed.headers.get("etag")).not.toBe(etag);
    const stale = await graphqlWith(UPDATE, { id, title: "Lost update" }, cast.alice.token, { "If-Match": etag });
    expect(stale.body.errors![0]!.extensions.code).toBe("PRECONDITION_FAILED");
    // A condition of the request's headers failed: the request's status, as on REST.
    expect(stale.status, stale.text).toBe(412);
    expect((await server.rest("GET", `/wiki/${id}`)).body.title).toBe("GraphQL versioned 2");

    // A query, two mutations, a create, and a mutation that takes an id but changes no record through the write path.
    for (const query of ["query Read($id: ID!) { wikiPage(id: $id) { id } }", `mutation Two($id: ID!) { a: deleteWikiPage(id: $id) b: deleteWikiPage(id: $id) }`, CREATE, "mutation Revoke($id: ID!) { revokeSession(id: $id) }"]) {
      const variables = query === CREATE ? { input: { title: "Not conditional", pagetext: "x", state: 1 } } : { id };
      const refused = await graphqlWith(query, variables, cast.alice.token, { "If-Match": etag });
      expect(refused.status, query).toBe(400);
      expect(refused.body.errors![0]!.extensions.errors[0].parameter).toBe("If-Match");
    }
    expect((await server.rest("GET", `/wiki/${id}`)).status).toBe(200);
    expect(await pagesTitled("Not conditional")).toBe(0);
  });
});

describe("PUT never loosens privacy", () => {
  // Every PUT row's privacy parameters, left out, keep the stored value, for every level and scope kind.
  for (const area of ["wiki", "blog"] as const) {
    for (const [level, access] of area === "wiki" ? ([["registered", 1], ["private", 4]] as const) : ([["registered", 2], ["private", 5]] as const)) {
      for (const inGroup of [false, true]) {
        it(`${area}: a ${level} record ${inGroup ? "of a group" : "of the site"} stays ${level} ${inGroup ? "in its group " : ""}after a PUT of only the required fields`, async () => {
          const scope = inGroup ? { scope: "group", scope_id: cast.groupId } : { scope: "site", scope_id: 0 };
          const required = area === "wiki" ? { title: `Kept ${level}`, pagetext: "Text." } : { title: `Kept ${level}`, content: "Text." };
          const created = await server.rest("POST", `/${area}`, { token: cast.member.token, body: { ...required, ...scope, access, state: 1 } });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          const put = await server.rest("PUT", `/${area}/${created.body.id}`, { token: cast.member.token, body: { ...required, state: 1 } });
          expect(put.status, JSON.stringify(put.body)).toBe(200);
          expect(put.body).toMatchObject({ access, ...scope });
          expect((await server.rest("GET", `/${area}/${created.body.id}`)).status).toBe(404);
          if (level === "private") expect((await server.rest("GET", `/${area}/${created.body.id}`, { token: cast.bob.token })).status).toBe(404);
        });
      }
    }
  }

  it("announcements: a draft stays a draft, and private, after a PUT of only the required fields (their `state` defaults to published)", async () => {
    const path = `/groups/${cast.groupId}/announcements`;
    const created = await server.rest("POST", path, { token: cast.manager.token, body: { title: "Draft news", content: "Not yet.", state: 0, access: 2 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const put = await server.rest("PUT", `${path}/${created.body.id}`, { token: cast.manager.token, body: { title: "Draft news, edited", content: "Still not yet." } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ title: "Draft news, edited", state: 0, access: 2 });
    expect((await server.rest("GET", `${path}/${created.body.id}`, { token: cast.member.token })).status).toBe(404);
  });

  it("every PUT row's `state` parameter whose default is published keeps the stored value when left out (a privacy parameter)", () => {
    const widening = restOperations
      .filter((row) => row.method === "PUT")
      .flatMap((row) => row.params.filter((param) => param.name === "state" && param.default !== undefined && Number(param.default) !== 0 && !param.privacy).map(() => `${row.method} ${row.path}`));
    expect(widening).toEqual([]);
  });
});

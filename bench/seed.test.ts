// The benchmark's data must be what its cases claim to measure. This seeds a small database with the
// app's migrations (in-memory PGlite, or a scratch database when DATABASE_URL is set) and checks the
// promises bench/seed.ts makes, so a change there (a new column, a new rule) cannot quietly break them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { applyMigrations, type SqlRunner } from "../src/db/migrate.js";
import { openPGlite } from "../src/db/database.js";
import { createScratchDatabase } from "../test/scratch-database.js";
import { migratedPgliteDump } from "../test/database-template.js";
import { BENCH_MEMBER, BENCH_USER, FEED_GROUPS, FORUM_CATEGORIES, SEARCH_WORD, seed, visibleWikiIds, type SeedSummary } from "./seed.js";

const PAGES = 1000;
const ENTRIES = 300;
const FORUM_POSTS = 3000;
const ACTIVITY = 5000;

let db: SqlRunner;
let close: () => Promise<void>;
let summary: SeedSummary;
const one = async (sql: string) => (await db.query(sql))[0]!;

beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL);
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    db = { exec: async (sql) => void (await client.query(sql)), query: async (sql, params) => (await client.query(sql, params)).rows };
    close = async () => {
      await client.end();
      await scratch.drop();
    };
  } else {
    const pglite = await openPGlite(undefined, migratedPgliteDump());
    db = { exec: async (sql) => void (await pglite.exec(sql)), query: async (sql, params) => (await pglite.query(sql, params)).rows as Record<string, unknown>[] };
    close = () => pglite.close();
  }
  await applyMigrations(db);
  summary = await seed(db, { wikiPages: PAGES, blogEntries: ENTRIES, forumPosts: FORUM_POSTS, activityRows: ACTIVITY }, "not-a-real-hash", () => {});
});

afterAll(() => close?.());

describe("bench seed", () => {
  it("stores the asked number of pages and entries, with more revisions than pages", async () => {
    expect(Number((await one(`SELECT count(*) AS n FROM wiki_pages`)).n)).toBe(PAGES);
    expect(Number((await one(`SELECT count(*) AS n FROM blog_entries`)).n)).toBe(ENTRIES);
    expect(Number((await one(`SELECT count(*) AS n FROM wiki_revisions`)).n)).toBe(summary.wikiRevisions);
    expect(summary.wikiRevisions).toBeGreaterThan(PAGES * 1.5);
  });

  it("points every page's current_revision_id at its newest revision", async () => {
    const wrong = await db.query(
      `SELECT p.id FROM wiki_pages p JOIN wiki_revisions r ON r.id = p.current_revision_id
       WHERE r.page_id <> p.id OR r.version <> (SELECT max(version) FROM wiki_revisions WHERE page_id = p.id)
       UNION ALL SELECT id FROM wiki_pages WHERE current_revision_id IS NULL`,
    );
    expect(wrong).toEqual([]);
    // Versions run 1..n without gaps.
    expect(await db.query(`SELECT page_id FROM wiki_revisions GROUP BY page_id HAVING max(version) <> count(*) OR min(version) <> 1`)).toEqual([]);
  });

  it("stores what the app's triggers keep: revision counts, the lower-cased current text, list counts", async () => {
    expect(
      await db.query(
        `SELECT p.id FROM wiki_pages p JOIN wiki_revisions r ON r.id = p.current_revision_id
         WHERE p.search_text <> lower(r.pagetext) OR p.revision_count <> (SELECT count(*) FROM wiki_revisions WHERE page_id = p.id AND approved)`,
      ),
    ).toEqual([]);
    const counted = await one(
      `SELECT (SELECT sum(rows) FROM list_counts WHERE table_name = 'wiki_pages' AND created_by = 0) AS pages,
              (SELECT sum(rows) FROM list_counts WHERE table_name = 'blog_entries' AND created_by = 0) AS entries`,
    );
    expect([Number(counted.pages), Number(counted.entries)]).toEqual([PAGES, ENTRIES]);
  });

  it("has some pages with many revisions", async () => {
    expect(Number((await one(`SELECT count(*) AS n FROM (SELECT page_id FROM wiki_revisions GROUP BY page_id HAVING count(*) >= 40) many`)).n)).toBeGreaterThan(0);
  });

  it("mixes states, access levels and scopes, mostly published public site pages", async () => {
    const share = async (where: string) => Number((await one(`SELECT avg(CASE WHEN ${where} THEN 1.0 ELSE 0 END) AS s FROM wiki_pages`)).s);
    expect(await share(`scope = 'site' AND scope_id = 0`)).toBeGreaterThan(0.8);
    expect(await share(`scope = 'group' AND scope_id > 0`)).toBeGreaterThan(0.03);
    expect(await share(`scope = 'member' AND scope_id = created_by`)).toBeGreaterThan(0.01);
    expect(await share(`state = 0`)).toBeGreaterThan(0.05);
    expect(await share(`access = 1`)).toBeGreaterThan(0.05);
    expect(await share(`access = 4`)).toBeGreaterThan(0.03);
    expect(Number((await one(`SELECT count(DISTINCT created_by) AS n FROM wiki_pages`)).n)).toBeGreaterThan(5);
  });

  it("gives the bench user private and unpublished pages of their own", async () => {
    const own = await one(
      `SELECT count(*) FILTER (WHERE access = 4) AS private, count(*) FILTER (WHERE state = 0) AS unpublished
       FROM wiki_pages WHERE created_by = ${BENCH_USER.id} AND scope = 'site'`,
    );
    expect(Number(own.private)).toBeGreaterThan(0);
    expect(Number(own.unpublished)).toBeGreaterThan(0);
    expect((await one(`SELECT username FROM users WHERE id = ${BENCH_USER.id}`)).username).toBe(BENCH_USER.username);
  });

  it("puts the search word in the current text of a few percent of the pages and nowhere else", async () => {
    const counts = await one(
      `SELECT count(*) FILTER (WHERE r.pagetext ILIKE '%${SEARCH_WORD}%') AS text, count(*) FILTER (WHERE p.title ILIKE '%${SEARCH_WORD}%') AS title
       FROM wiki_pages p JOIN wiki_revisions r ON r.id = p.current_revision_id`,
    );
    expect(Number(counts.text) / PAGES).toBeGreaterThan(0.01);
    expect(Number(counts.text) / PAGES).toBeLessThan(0.06);
    expect(Number(counts.title)).toBe(0);
  });

  it("gives blog entries publishing windows in the past, the future and closed", async () => {
    const windows = await one(
      `SELECT count(*) FILTER (WHERE publish_up > now()) AS scheduled, count(*) FILTER (WHERE publish_down < now()) AS closed,
              count(*) FILTER (WHERE state = 1 AND publish_up <= now() AND publish_down IS NULL AND access IN (0, 1) AND scope = 'site') AS listed
       FROM blog_entries`,
    );
    expect(Number(windows.scheduled)).toBeGreaterThan(0);
    expect(Number(windows.closed)).toBeGreaterThan(0);
    expect(Number(windows.listed)).toBeGreaterThan(ENTRIES / 2);
  });

  it("moves every id sequence past the seeded rows", async () => {
    for (const table of ["users", "groups", "wiki_pages", "wiki_revisions", "blog_entries", "forum_posts", "forum_categories", "activity"]) {
      const row = await one(`SELECT nextval(pg_get_serial_sequence('${table}', 'id')) AS next, (SELECT max(id) FROM ${table}) AS max`);
      expect(Number(row.next), table).toBeGreaterThan(Number(row.max));
    }
  });

  it("hands the read cases ids the caller can see, spread over the table", async () => {
    const anonymous = await visibleWikiIds(db, "anonymous", 200);
    expect(anonymous).toHaveLength(200);
    const hidden = await db.query(`SELECT id FROM wiki_pages WHERE id = ANY($1::int[]) AND NOT (state = 1 AND access = 0)`, [anonymous]);
    expect(hidden).toEqual([]);
    expect(Math.max(...anonymous) - Math.min(...anonymous)).toBeGreaterThan(PAGES / 2);
    const signedIn = await visibleWikiIds(db, "bench-user", 2000);
    const own = await db.query(`SELECT id FROM wiki_pages WHERE id = ANY($1::int[]) AND created_by = ${BENCH_USER.id} AND (state = 0 OR access = 4)`, [signedIn]);
    expect(own.length).toBeGreaterThan(0);
  });

  it("seeds forum threads over the categories, some with 25 posts and more", async () => {
    const counts = await one(
      `SELECT count(*) AS posts, count(*) FILTER (WHERE starter = 1) AS threads, count(DISTINCT category_id) AS categories FROM forum_posts`,
    );
    expect([Number(counts.posts), Number(counts.threads), Number(counts.categories)]).toEqual([FORUM_POSTS, FORUM_POSTS / 10, FORUM_CATEGORIES]);
    expect(summary.forumThreads).toBe(FORUM_POSTS / 10);
    expect(Number((await one(`SELECT count(*) AS n FROM (SELECT thread_id FROM forum_posts GROUP BY thread_id HAVING count(*) >= 26) busy`)).n)).toBeGreaterThan(0);
  });

  it("stores the forum's rows and counters as its triggers would", async () => {
    const rows = `SELECT id, category_id, section_id, thread_id, parent_id, scope, scope_id, state, own_state, access, sticky, closed FROM forum_posts ORDER BY id`;
    const before = await db.query(rows);
    await db.exec("BEGIN");
    try {
      // forum_posts_inherit again on every row: nothing changes (forum_posts_count takes each post out and in again).
      await db.exec(`UPDATE forum_posts SET own_state = own_state`);
      expect(await db.query(rows)).toEqual(before);
      // A starter's last_activity is its newest post's time.
      expect(
        await db.query(
          `SELECT s.id FROM forum_posts s WHERE s.starter = 1
             AND s.last_activity <> greatest(s.created, (SELECT max(created) FROM forum_posts r WHERE r.thread_id = s.id AND r.starter = 0))`,
        ),
      ).toEqual([]);
      // The participants as forum_thread_participants_add would keep them, post by post.
      expect(
        await db.query(
          `(SELECT thread_id, user_id, last_post_id FROM forum_thread_participants EXCEPT SELECT thread_id, created_by, max(id) FROM forum_posts GROUP BY 1, 2)
           UNION ALL (SELECT thread_id, created_by, max(id) FROM forum_posts GROUP BY 1, 2 EXCEPT SELECT thread_id, user_id, last_post_id FROM forum_thread_participants)`,
        ),
      ).toEqual([]);
      // Deleting every post through the triggers takes each count back to exactly zero.
      await db.exec(`DELETE FROM forum_posts WHERE starter = 1`);
      expect(Number((await one(`SELECT count(*) AS n FROM forum_posts`)).n)).toBe(0);
      expect(await db.query(`SELECT * FROM forum_counts WHERE threads <> 0 OR posts <> 0`)).toEqual([]);
    } finally {
      await db.exec("ROLLBACK");
    }
    expect(Number((await one(`SELECT sum(posts) AS n FROM forum_counts WHERE thread_id = 0`)).n)).toBe(FORUM_POSTS);
  });

  it("sends about 2 % of the activity entries to the feed's member and their 50 groups", async () => {
    expect(Number((await one(`SELECT count(*) AS n FROM activity`)).n)).toBe(ACTIVITY);
    expect(Number((await one(`SELECT count(*) AS n FROM activity_recipients`)).n)).toBe(ACTIVITY);
    const groups = await one(`SELECT count(*) AS n FROM group_members WHERE user_id = ${BENCH_MEMBER.id}`);
    expect(Number(groups.n)).toBe(FEED_GROUPS);
    const sent = await one(
      `SELECT count(DISTINCT r.entry_id) AS n FROM activity_recipients r
       WHERE (r.scope = 'member' AND r.scope_id = ${BENCH_MEMBER.id})
          OR (r.scope = 'group' AND r.scope_id IN (SELECT group_id FROM group_members WHERE user_id = ${BENCH_MEMBER.id}))`,
    );
    expect(Number(sent.n) / ACTIVITY).toBeGreaterThan(0.01);
    expect(Number(sent.n) / ACTIVITY).toBeLessThan(0.03);
  });
});

// Every row the benchmark stores is written here, in bulk SQL (generate_series), so a new column or a
// changed rule is one edit in this file. The schema itself comes from the app's own migrations (run
// before seeding), so new indexes need nothing here.
//
// The data is deterministic: every "random" choice is a hash of the row number, so two runs with the
// same --rows measure the same rows. Columns that are not listed take their schema default.
import type { SqlRunner } from "../src/db/migrate.js";

/** The signed-in user of the "user" cases: author of 1/AUTHORS of everything, member of two groups. */
export const BENCH_USER = { id: 1, username: "bench", password: "bench-password-not-secret" } as const;
/** Occurs in the current text of SEARCH_SHARE_PERCENT % of the wiki pages and nowhere else. */
export const SEARCH_WORD = "zephyr";
export const SEARCH_SHARE_PERCENT = 3;
export const AUTHORS = 20;
export const GROUPS = 20;
/** Groups (ids) the bench user belongs to; a manager of the first. */
export const BENCH_USER_GROUPS = [1, 2];
/** The write cases' administrator, signed in with BENCH_USER's password. */
export const BENCH_ADMIN = { id: AUTHORS + 1, username: "bench-admin" } as const;
/** A member (not a manager) of every seeded group, who writes in them: the member write cases, one scope and all 20. */
export const BENCH_WRITER = { id: AUTHORS + 2, username: "bench-writer" } as const;
/** The activity feed's reader (the "activityFeed" case): a member of FEED_GROUPS groups of their own. */
export const BENCH_MEMBER = { id: AUTHORS + 3, username: "bench-member" } as const;
/** Groups (ids FEED_GROUP_FIRST …) BENCH_MEMBER belongs to; nobody else does. */
export const FEED_GROUPS = 50;
export const FEED_GROUP_FIRST = GROUPS + 1;
/** Per cent of the activity entries sent to BENCH_MEMBER or one of their groups (one recipient each). */
export const FEED_SHARE_PERCENT = 2;
/** Forum categories the threads are spread over (site scope, the default section). */
export const FORUM_CATEGORIES = 100;
/** Posts per thread on average (starter included): threads = forum posts / POSTS_PER_THREAD. */
export const POSTS_PER_THREAD = 10;
/** Per cent of the replies that go to the busiest 1 % of threads (so some threads have 25 posts and more). */
const BUSY_REPLY_PERCENT = 5;
/** Rows per INSERT statement: bounds the memory one statement needs at 10^6 rows. */
const CHUNK = 50_000;
/** Distinct texts the pages and entries draw from (~200 to ~1000 characters each). */
const TEXTS = 1000;

// Plain words: none contains SEARCH_WORD, and none is "errors" (the load generator counts bodies with an
// "errors" key as failures).
const WORDS = (
  "about above across action active actual after again agent alpha always amount answer apply archive area " +
  "around article aspect author basic before begin behind below better beyond block board border bridge " +
  "bright broad budget build button cable camera campus canvas capital carbon career castle center change " +
  "channel chapter charge circle client climate closed cluster coastal column common community compare " +
  "complete concept content context corner county course create credit culture current custom daily debate " +
  "decade default define degree delta design detail device digital direct distant domain double draft " +
  "during early editor effect effort element energy engine enough entire equal estate event exact example " +
  "expert export factor family feature field figure filter final finance first focus forest format forward " +
  "frame garden gather general global golden graph ground group growth guide harbor health height history " +
  "honest hover impact import index inside island issue journal kernel label ladder language launch layer " +
  "leader legacy letter level library light limit linear listen little local logic manual margin market " +
  "master matter medium member memory method middle minute mobile model modern moment motion native nature " +
  "network normal notice number object office online option orange origin output owner packet palace panel " +
  "parent partner people period person phrase planet player pocket policy portal power private process " +
  "profile project public purpose quality question random reader record region release report research " +
  "review river robust router sample screen search season second secure select series server signal silver " +
  "simple single social source spring square stable status steady stone storage stream street strong studio " +
  "subject summer supply system table target teacher theory thread ticket timber toggle topic tower travel " +
  "trigger update useful valley vector version village visual volume wander weekly window winter wonder " +
  "worker yellow"
).split(" ");

/**
 * A whole number in [0, modulo) chosen by hashing `expression` with `salt`: stable across runs, evenly spread.
 * hashint4 gives a signed 32-bit value; shifting it into [0, 2^32) keeps the modulo non-negative. Its
 * argument is computed in 64 bits and folded into int4 (page ids × 131 × 31 pass 2^31 from ≈528,000 pages
 * on); below 2^31 − 1 the fold changes nothing, so smaller seeds keep the rows they always had.
 */
const pick = (expression: string, salt: number, modulo: number) =>
  `((hashint4((((${expression})::int8 * 31 + ${salt}) % 2147483647)::int4)::int8 + 2147483648) % ${modulo})::int`;

/** Scope mix of pages and entries: 88 % site, 8 % a group, 4 % the author's member scope. */
const scopeOf = (row: string) => `CASE WHEN ${pick(row, 3, 100)} < 88 THEN 'site' WHEN ${pick(row, 3, 100)} < 96 THEN 'group' ELSE 'member' END`;
const scopeIdOf = (row: string, author: string) =>
  `CASE WHEN ${pick(row, 3, 100)} < 88 THEN 0 WHEN ${pick(row, 3, 100)} < 96 THEN 1 + ${pick(row, 6, GROUPS)} ELSE ${author} END`;
const authorOf = (row: string) => `1 + ${pick(row, 4, AUTHORS)}`;
/** Up to five years back from now, so publishing windows and "newest first" look like a live site. */
const createdOf = (row: string) => `now() - make_interval(secs => ${pick(row, 5, 5 * 365 * 24 * 3600)})`;
const titleOf = (row: string) =>
  `initcap(words[1 + ${pick(row, 7, WORDS.length)}]) || ' ' || words[1 + ${pick(row, 8, WORDS.length)}] || ' ' || words[1 + ${pick(row, 9, WORDS.length)}]`;

export interface SeedSize {
  wikiPages: number;
  blogEntries: number;
  /** Forum posts, starters included (threads = forumPosts / POSTS_PER_THREAD); 0: none. */
  forumPosts?: number;
  /** Activity entries, one recipient each; 0: none. */
  activityRows?: number;
}

export interface SeedSummary {
  wikiPages: number;
  wikiRevisions: number;
  blogEntries: number;
  forumPosts?: number;
  forumThreads?: number;
  activityRows?: number;
  users: number;
  seconds: number;
}

/**
 * Fills a freshly migrated database. `db` must be one session (temporary tables live in it).
 * `passwordHash` is the bench user's argon2 hash, so the bench can sign in through the token endpoint.
 */
export async function seed(db: SqlRunner, size: SeedSize, passwordHash: string, log: (line: string) => void): Promise<SeedSummary> {
  const started = performance.now();
  await db.query(
    `INSERT INTO users (id, username, email, name, password_hash)
     SELECT g, CASE WHEN g = $1::int THEN $2::text ELSE 'author' || g END, 'author' || g || '@example.test', 'Author ' || g,
            CASE WHEN g = $1::int THEN $3::text ELSE '-' END
     FROM generate_series(1, $4::int) g`,
    [BENCH_USER.id, BENCH_USER.username, passwordHash, AUTHORS],
  );
  await db.query(`INSERT INTO users (id, username, email, name, password_hash, is_admin) VALUES ($1, $2, $2 || '@example.test', 'Bench administrator', $3, true)`, [
    BENCH_ADMIN.id,
    BENCH_ADMIN.username,
    passwordHash,
  ]);
  await db.query(`INSERT INTO users (id, username, email, name, password_hash, is_admin) VALUES ($1, $2, $2 || '@example.test', 'Bench writer', $3, false)`, [
    BENCH_WRITER.id,
    BENCH_WRITER.username,
    passwordHash,
  ]);
  await db.query(`INSERT INTO users (id, username, email, name, password_hash, is_admin) VALUES ($1, $2, $2 || '@example.test', 'Bench member', $3, false)`, [
    BENCH_MEMBER.id,
    BENCH_MEMBER.username,
    passwordHash,
  ]);
  await db.query(`SELECT setval(pg_get_serial_sequence('users', 'id'), $1)`, [BENCH_MEMBER.id]);
  // The bare INSERT's table (bench/bare-server.ts): a wiki page's columns, with no trigger, index or reference.
  await db.exec(`CREATE TABLE bare_pages (id serial PRIMARY KEY, title text NOT NULL, pagename text NOT NULL, scope text NOT NULL, scope_id int NOT NULL,
    state int NOT NULL, access int NOT NULL, params jsonb NOT NULL, created timestamp(3) NOT NULL, created_by int NOT NULL, modified timestamp(3) NOT NULL)`);
  // PostGraphile's table (bench/peers/postgraphile): the same columns in a schema of its own, which is all it
  // serves; the times default to the transaction's, as a create mutation would leave them to the database.
  await db.exec(`CREATE SCHEMA peer`);
  await db.exec(`CREATE TABLE peer.pages (id serial PRIMARY KEY, title text NOT NULL, pagename text NOT NULL, scope text NOT NULL, scope_id int NOT NULL,
    state int NOT NULL, access int NOT NULL, params jsonb NOT NULL, created timestamp(3) NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'), created_by int NOT NULL,
    modified timestamp(3) NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'))`);
  // PostGraphile's read (issue 28, item 3): a view giving exactly the rows, columns and order of our anonymous
  // GraphQL page (bench/bare-server.ts wikiPage: visible wiki pages of the site, their URL and revision count),
  // asked by title then id. `@primaryKey` lets PostGraphile page it as a table, and its order needs no index.
  await db.exec(`CREATE VIEW peer.visible_pages AS
    SELECT p.id, p.title, p.pagename, p.created, p.created_by, p.modified, p.state, p.access, p.scope, p.scope_id, p.params,
      CASE WHEN p.scope = 'site' THEN '/wiki/' || p.pagename ELSE '/' || p.scope || 's/' || p.scope_id || '/wiki/' || p.pagename END AS url,
      p.revision_count
    FROM public.wiki_pages p WHERE p.state = 1 AND p.access = 0 AND p.scope = 'site' AND p.scope_id = 0`);
  await db.exec(`COMMENT ON VIEW peer.visible_pages IS E'@primaryKey id'`);
  await db.query(`INSERT INTO groups (id, cn, title) SELECT g, 'group' || g, 'Group ' || g FROM generate_series(1, $1::int) g`, [GROUPS + FEED_GROUPS]);
  await db.query(`INSERT INTO group_members (group_id, user_id, status, manager) SELECT g, $1::int, 'member', false FROM generate_series($2::int, $3::int) g`, [
    BENCH_MEMBER.id,
    FEED_GROUP_FIRST,
    FEED_GROUP_FIRST + FEED_GROUPS - 1,
  ]);
  await db.query(
    `INSERT INTO group_members (group_id, user_id, status, manager)
     SELECT g, $1::int, 'member', g = $3::int FROM unnest($2::int[]) g`,
    [BENCH_USER.id, BENCH_USER_GROUPS, BENCH_USER_GROUPS[0]],
  );
  await db.query(`INSERT INTO group_members (group_id, user_id, status, manager) SELECT g, $1::int, 'member', false FROM generate_series(1, $2::int) g`, [
    BENCH_WRITER.id,
    GROUPS,
  ]);
  await db.exec(`CREATE TEMPORARY TABLE bench_texts (n int PRIMARY KEY, body text NOT NULL)`);
  await db.query(
    `INSERT INTO bench_texts
     SELECT n, string_agg(words[1 + ${pick("n * 1000 + k", 11, WORDS.length)}], ' ' ORDER BY k) AS body
     FROM (SELECT $1::text[] AS words) vocabulary, generate_series(0, $2::int - 1) n, generate_series(1, 30 + n % 120) k
     GROUP BY n`,
    [WORDS, TEXTS],
  );
  // Every row below looks its text up here: by primary key, not by scanning the 1000 texts.
  await db.exec(`ANALYZE bench_texts`);

  // Secondary indexes of the seeded tables are dropped here and built again at the end: one bulk build is
  // many times faster than keeping them (the trigram ones above all) row by row. Indexes behind a
  // constraint (primary keys, anything a foreign key points at) stay.
  const rebuild = await db.query(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relnamespace = 'public'::regnamespace AND t.relname IN ('wiki_pages', 'wiki_revisions', 'blog_entries', 'forum_posts', 'activity', 'activity_recipients')
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
  );
  for (const index of rebuild) await db.exec(`DROP INDEX ${index.name}`);

  // Wiki pages with their revisions, in one statement per chunk: pages and revisions point at each
  // other (current_revision_id / page_id), and foreign keys are checked at the end of the statement.
  // Revision ids are numbered page by page, so each page's newest revision id is known in advance.
  // Revisions per page: 0.5 % of pages have 40–80, 9.5 % have 3–8, the rest 1–2 (≈2.2 on average).
  const revisionsOf = (row: string) =>
    `CASE WHEN ${pick(row, 1, 1000)} < 5 THEN 40 + ${pick(row, 2, 41)} WHEN ${pick(row, 1, 1000)} < 100 THEN 3 + ${pick(row, 2, 6)} ELSE 1 + ${pick(row, 2, 2)} END`;
  /** The text of a page's revision: one of the texts, with the search word in searchable pages. */
  const textOf = (page: string, version: string, searchable: string) =>
    `(SELECT body || CASE WHEN ${searchable} THEN ' ' || $6 ELSE '' END FROM bench_texts WHERE n = ${pick(`${page} * 131 + ${version}`, 12, TEXTS)})`;
  let revisions = 0;
  for (let first = 1; first <= size.wikiPages; first += CHUNK) {
    const last = Math.min(size.wikiPages, first + CHUNK - 1);
    const [row] = await db.query(
      `WITH spec AS (
         SELECT g AS id, ${revisionsOf("g")} AS revisions, ${authorOf("g")} AS author, ${createdOf("g")} AS created,
                ${pick("g", 9, 100)} < $5 AS searchable
         FROM generate_series($1::int, $2::int) g
       ), numbered AS (
         SELECT spec.*, ($3::int + sum(revisions) OVER (ORDER BY id))::int AS newest_revision FROM spec
       ), pages AS (
         -- search_text is the newest revision's text in lower case (the app's trigger keeps it; it cannot
         -- see revisions inserted by the same statement, so it is given here). revision_count and
         -- list_counts are kept by the app's statement triggers.
         INSERT INTO wiki_pages (id, title, pagename, scope, scope_id, state, access, created, created_by, modified, current_revision_id, search_text)
         SELECT id, ${titleOf("id")}, 'Page' || id, ${scopeOf("id")}, ${scopeIdOf("id", "author")},
                -- 90 % published; 80 % public, 12 % registered users, 8 % private
                CASE WHEN ${pick("id", 10, 100)} < 90 THEN 1 ELSE 0 END,
                CASE WHEN ${pick("id", 13, 100)} < 80 THEN 0 WHEN ${pick("id", 13, 100)} < 92 THEN 1 ELSE 4 END,
                created, author, least(now(), created + (revisions - 1) * interval '10 minutes'), newest_revision,
                lower(${textOf("id", "revisions", "searchable")})
         FROM numbered, (SELECT $4::text[] AS words) vocabulary
       ), inserted AS (
         INSERT INTO wiki_revisions (id, page_id, version, pagetext, summary, length, created, created_by)
         SELECT page.newest_revision - page.revisions + version, page.id, version, text.pagetext,
                CASE WHEN version = 1 THEN '' ELSE 'edit ' || version END, length(text.pagetext),
                least(now(), page.created + (version - 1) * interval '10 minutes'), page.author
         FROM numbered page
         CROSS JOIN LATERAL generate_series(1, page.revisions) version
         CROSS JOIN LATERAL (SELECT ${textOf("page.id", "version", "page.searchable")} AS pagetext) text
         RETURNING 1
       )
       SELECT count(*)::int AS revisions FROM inserted`,
      [first, last, revisions, WORDS, SEARCH_SHARE_PERCENT, SEARCH_WORD],
    );
    revisions += Number(row!.revisions);
    log(`  wiki pages ${last}/${size.wikiPages} (${revisions} revisions)`);
  }

  for (let first = 1; first <= size.blogEntries; first += CHUNK) {
    const last = Math.min(size.blogEntries, first + CHUNK - 1);
    await db.query(
      `INSERT INTO blog_entries (id, title, alias, content, scope, scope_id, state, access, allow_comments,
                                 publish_up, publish_down, hits, tags, created, created_by, modified)
       SELECT g, ${titleOf("g")}, 'entry-' || g, (SELECT body FROM bench_texts WHERE n = ${pick("g", 14, TEXTS)}),
              ${scopeOf("g")}, ${scopeIdOf("g", authorOf("g"))},
              -- 90 % published; access 0 (default, public) 40 %, 1 public 40 %, 2 registered 12 %, 5 private 8 %
              CASE WHEN ${pick("g", 10, 100)} < 90 THEN 1 ELSE 0 END,
              CASE WHEN ${pick("g", 13, 100)} < 40 THEN 0 WHEN ${pick("g", 13, 100)} < 80 THEN 1 WHEN ${pick("g", 13, 100)} < 92 THEN 2 ELSE 5 END,
              CASE WHEN ${pick("g", 15, 10)} = 0 THEN 0 ELSE 1 END,
              -- 2 % scheduled for the coming month; 3 % whose window closed a month after they went up
              CASE WHEN ${pick("g", 16, 100)} < 2 THEN now() + make_interval(secs => ${pick("g", 17, 30 * 24 * 3600)}) ELSE ${createdOf("g")} END,
              CASE WHEN ${pick("g", 16, 100)} BETWEEN 2 AND 4 THEN ${createdOf("g")} + interval '30 days' END,
              ${pick("g", 18, 10_000)},
              (SELECT coalesce(array_agg(words[1 + ${pick("g * 7 + t", 19, WORDS.length)}]), '{}') FROM generate_series(1, ${pick("g", 20, 4)}) t),
              ${createdOf("g")}, ${authorOf("g")}, ${createdOf("g")}
       FROM generate_series($1::int, $2::int) g, (SELECT $3::text[] AS words) vocabulary`,
      [first, last, WORDS],
    );
    log(`  blog entries ${last}/${size.blogEntries}`);
  }

  const forum = await seedForum(db, size.forumPosts ?? 0, log);
  const activityRows = size.activityRows ?? 0;
  for (let first = 1; first <= activityRows; first += CHUNK) {
    const last = Math.min(activityRows, first + CHUNK - 1);
    // One recipient per entry: FEED_SHARE_PERCENT % to the feed's member (a tenth of those) or one of their
    // groups; of the rest, 40 % the site, 30 % another group, 30 % another member.
    const share = pick("g", 30, 1000);
    await db.query(
      `WITH spec AS (
         SELECT g AS id, ${authorOf("g")} AS author, ${createdOf("g")} AS created,
                CASE WHEN ${share} < $3 * 10 THEN CASE WHEN ${pick("g", 31, 10)} = 0 THEN 'member' ELSE 'group' END
                     WHEN ${share} < 400 + $3 * 6 THEN 'site' WHEN ${share} < 700 + $3 * 3 THEN 'group' ELSE 'member' END AS to_scope,
                CASE WHEN ${share} < $3 * 10 THEN CASE WHEN ${pick("g", 31, 10)} = 0 THEN $4::int ELSE $5::int + ${pick("g", 32, FEED_GROUPS)} END
                     WHEN ${share} < 400 + $3 * 6 THEN 0 WHEN ${share} < 700 + $3 * 3 THEN 1 + ${pick("g", 33, GROUPS)} ELSE 1 + ${pick("g", 34, AUTHORS)} END AS to_id
         FROM generate_series($1::int, $2::int) g
       ), entries AS (
         INSERT INTO activity (id, scope, scope_id, action, description, recipients, created, created_by, modified)
         SELECT id, CASE WHEN to_scope = 'group' THEN 'group' ELSE 'site' END, CASE WHEN to_scope = 'group' THEN to_id ELSE 0 END,
                'forum.post', 'Wrote ' || id, to_scope || ':' || to_id, created, author, created
         FROM spec
         RETURNING id
       )
       INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
       SELECT spec.id, to_scope, to_id, created FROM spec JOIN entries USING (id)`,
      [first, last, FEED_SHARE_PERCENT, BENCH_MEMBER.id, FEED_GROUP_FIRST],
    );
    log(`  activity entries ${last}/${activityRows}`);
  }

  // Explicit ids above: move each sequence past them so the app's own inserts keep working.
  for (const table of ["users", "groups", "wiki_pages", "wiki_revisions", "blog_entries", "forum_posts", "activity"]) {
    await db.exec(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), greatest(1, (SELECT max(id) FROM ${table})))`);
  }
  await db.exec(`DROP TABLE bench_texts`);
  log(`  building ${rebuild.length} indexes`);
  await db.exec(`SET maintenance_work_mem = '256MB'`);
  for (const index of rebuild) await db.exec(String(index.definition));
  await db.exec(`RESET maintenance_work_mem`);
  // VACUUM as well as ANALYZE: autovacuum would otherwise start on the fresh tables in the middle of a
  // measurement, and a live site's tables have been vacuumed (visibility map set) anyway.
  log("  VACUUM ANALYZE");
  await db.exec(`VACUUM ANALYZE`);
  return {
    wikiPages: size.wikiPages,
    wikiRevisions: revisions,
    blogEntries: size.blogEntries,
    forumPosts: size.forumPosts ?? 0,
    forumThreads: forum.threads,
    activityRows,
    users: AUTHORS,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * FORUM_CATEGORIES categories, then `posts` forum posts: the first posts/POSTS_PER_THREAD ids are the
 * threads' starters, the rest their replies (BUSY_REPLY_PERCENT % of them to the first 1 % of threads).
 * The forum's row triggers (forum_posts_inherit, forum_thread_participants_add, forum_posts_count: one upsert per post on the category's
 * hot rows) are off while the posts go in; the rows are written as forum_posts_inherit would leave them,
 * and the starters' last_activity and forum_counts are computed afterwards in one statement each, equal to
 * what the triggers give (bench/seed.test.ts compares them).
 */
async function seedForum(db: SqlRunner, posts: number, log: (line: string) => void) {
  if (posts <= 0) return { threads: 0 };
  const threads = Math.max(1, Math.floor(posts / POSTS_PER_THREAD));
  const busy = Math.max(1, Math.floor(threads / 100));
  const [section] = await db.query(`SELECT id FROM forum_sections WHERE alias = 'general' AND scope = 'site' AND scope_id = 0`);
  const [base] = await db.query(`SELECT coalesce(max(id), 0)::int AS id FROM forum_categories`);
  const categoryBase = Number(base!.id);
  await db.query(
    `INSERT INTO forum_categories (id, section_id, alias, title, scope, scope_id, ordering)
     SELECT $2::int + c, $1::int, 'category-' || c, 'Category ' || c, 'site', 0, c FROM generate_series(1, $3::int) c`,
    [section!.id, categoryBase, FORUM_CATEGORIES],
  );
  await db.exec(`SELECT setval(pg_get_serial_sequence('forum_categories', 'id'), (SELECT max(id) FROM forum_categories))`);
  await db.exec(`ALTER TABLE forum_posts DISABLE TRIGGER forum_posts_inherit`);
  await db.exec(`ALTER TABLE forum_posts DISABLE TRIGGER forum_posts_count`);
  await db.exec(`ALTER TABLE forum_posts DISABLE TRIGGER forum_thread_participants_add`);
  for (let first = 1; first <= threads; first += CHUNK) {
    const last = Math.min(threads, first + CHUNK - 1);
    // Round robin over the categories (each has threads/100); 95 % published; access 1 public 85 %, 2 registered 10 %, 5 private 5 %; 2 % anonymous, 1 % sticky.
    await db.query(
      `INSERT INTO forum_posts (id, category_id, section_id, thread_id, starter, parent_id, title, comment, scope, scope_id, state, own_state,
                                access, anonymous, sticky, closed, created, created_by, modified, last_activity)
       SELECT g, $3::int + 1 + (g - 1) % ${FORUM_CATEGORIES}, $4::int, g, 1, 0, ${titleOf("g")},
              (SELECT body FROM bench_texts WHERE n = ${pick("g", 14, TEXTS)}), 'site', 0,
              CASE WHEN ${pick("g", 25, 100)} < 95 THEN 1 ELSE 0 END, CASE WHEN ${pick("g", 25, 100)} < 95 THEN 1 ELSE 0 END,
              CASE WHEN ${pick("g", 13, 100)} < 85 THEN 1 WHEN ${pick("g", 13, 100)} < 95 THEN 2 ELSE 5 END,
              CASE WHEN ${pick("g", 27, 100)} < 2 THEN 1 ELSE 0 END, CASE WHEN ${pick("g", 28, 100)} < 1 THEN 1 ELSE 0 END, 0,
              ${createdOf("g")}, ${authorOf("g")}, ${createdOf("g")}, ${createdOf("g")}
       FROM generate_series($1::int, $2::int) g, (SELECT $5::text[] AS words) vocabulary`,
      [first, last, categoryBase, section!.id, WORDS],
    );
    log(`  forum threads ${last}/${threads}`);
  }
  for (let first = threads + 1; first <= posts; first += CHUNK) {
    const last = Math.min(posts, first + CHUNK - 1);
    // A reply takes its thread's category, section, scope and access; it is published while it and its
    // starter are (97 % of replies are); it comes up to 30 days after its starter, never after now.
    await db.query(
      `INSERT INTO forum_posts (id, category_id, section_id, thread_id, starter, parent_id, title, comment, scope, scope_id, state, own_state,
                                access, anonymous, sticky, closed, created, created_by, modified, last_activity)
       SELECT r.g, s.category_id, s.section_id, s.id, 0, s.id, 'Re: ' || s.title,
              (SELECT body FROM bench_texts WHERE n = ${pick("r.g", 14, TEXTS)}), s.scope, s.scope_id,
              CASE WHEN r.own_state = 1 AND s.own_state = 1 THEN 1 ELSE 0 END, r.own_state, s.access,
              CASE WHEN ${pick("r.g", 27, 100)} < 2 THEN 1 ELSE 0 END, 0, 0, c.created, r.author, c.created, c.created
       FROM (SELECT g, CASE WHEN ${pick("g", 22, 100)} < $4 THEN 1 + ${pick("g", 23, busy)} ELSE 1 + (g - $3::int - 1) % $3::int END AS thread,
                    CASE WHEN ${pick("g", 25, 100)} < 97 THEN 1 ELSE 0 END AS own_state, ${authorOf("g")} AS author,
                    ${pick("g", 26, 30 * 24 * 3600)} AS after
             FROM generate_series($1::int, $2::int) g) r
       JOIN forum_posts s ON s.id = r.thread
       CROSS JOIN LATERAL (SELECT least(now(), s.created + make_interval(secs => r.after))::timestamp(3) AS created) c`,
      [first, last, threads, BUSY_REPLY_PERCENT],
    );
    log(`  forum replies ${last - threads}/${posts - threads}`);
  }
  // What forum_posts_count does per post, for all of them at once: a reply moves its starter's last_activity
  // forward; each post counts once in its thread's row and once in its category's (thread 0), per access and state.
  await db.exec(
    `UPDATE forum_posts s SET last_activity = r.latest
     FROM (SELECT thread_id, max(created) AS latest FROM forum_posts WHERE starter = 0 GROUP BY thread_id) r
     WHERE s.id = r.thread_id AND s.last_activity < r.latest`,
  );
  await db.exec(
    `INSERT INTO forum_counts (category_id, thread_id, access, state, threads, posts)
     SELECT category_id, thread_id, access, state, 0, count(*)::int FROM forum_posts WHERE thread_id <> 0 GROUP BY category_id, thread_id, access, state
     UNION ALL
     SELECT category_id, 0, access, state, sum(starter)::int, count(*)::int FROM forum_posts GROUP BY category_id, access, state`,
  );
  // What forum_thread_participants_add does per post: each author of a thread's posts, with their latest there.
  await db.exec(
    `INSERT INTO forum_thread_participants (thread_id, user_id, last_post_id) SELECT thread_id, created_by, max(id) FROM forum_posts GROUP BY thread_id, created_by`,
  );
  await db.exec(`ALTER TABLE forum_posts ENABLE TRIGGER forum_posts_inherit`);
  await db.exec(`ALTER TABLE forum_posts ENABLE TRIGGER forum_posts_count`);
  await db.exec(`ALTER TABLE forum_posts ENABLE TRIGGER forum_thread_participants_add`);
  return { threads };
}

/** Rows the read cases cycle through: about `count` ids spread over the whole table, each visible to the caller. */
export async function visibleWikiIds(db: SqlRunner, viewer: "anonymous" | "bench-user", count = 1000): Promise<number[]> {
  const visible =
    viewer === "anonymous"
      ? `state = 1 AND access = 0`
      : `(created_by = ${BENCH_USER.id} OR (state = 1 AND access IN (0, 1))
          OR (state = 1 AND access = 4 AND scope = 'group' AND scope_id = ANY('{${BENCH_USER_GROUPS.join(",")}}'::int[])))`;
  const rows = await db.query(`SELECT id FROM wiki_pages WHERE ${visible} ORDER BY hashint4(id) LIMIT ${count}`);
  return rows.map((row) => Number(row.id));
}

// The practical limit: node:http and a pg pool of 20 answering the same questions as the Hubgraph cases
// with hand-written SQL and no framework. Run as its own process by bench/run.ts:
//   DATABASE_URL=postgres://… PORT=… node --import tsx bench/bare-server.ts
//
//   GET /wiki/page        the first 25 site pages an anonymous caller sees, sorted like /api/wiki/list
//   GET /wiki/page-total  the same page and COUNT(*) of every matching page
//   GET /wiki/read?id=N   one page with its current revision, as GET /api/wiki/{id}
//   GET /blog/page        the first 25 site entries an anonymous caller sees, sorted like /api/blog/list
//   GET /captured/NAME    the statements Hubgraph sent for one request of a case (bench/capture.ts, in the
//                         file BENCH_CAPTURED names), with the same values: the first alone, the rest together
//                         (as our list's counts and last posts follow its page) — the forum and feed cases
//   POST /wiki/insert     one INSERT into bare_pages (a wiki page's columns; no trigger, index or reference)
//   POST /wiki/create-sql the statements Hubgraph's wiki create sends (src/wiki/area.ts, src/common/write-path.ts):
//                         ONE statement inserting the page, its first revision and its outbox event, and
//                         answering the page with that revision. Our own overhead is the Hubgraph case's
//                         time beyond this one's.
//
// The same rows and fields as the app's answers (revision counts and URLs included), so a ratio compares
// like with like. When the app's SQL changes (a stored revision count, a new index), change these too.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import pg from "pg";

const PAGE_SIZE = 25;

const wikiVisible = `p.state = 1 AND p.access = 0`;
const wikiFields = `p.id, p.title, p.pagename, p.created, p.created_by, p.modified, p.state, p.access, p.scope, p.scope_id, p.params,
  CASE WHEN p.scope = 'site' THEN '/wiki/' || p.pagename ELSE '/' || p.scope || 's/' || p.scope_id || '/wiki/' || p.pagename END AS url,
  p.revision_count AS revisions`;
const wikiSiteScope = `p.scope = 'site' AND p.scope_id = 0`;

const queries = {
  wikiPage: `SELECT ${wikiFields} FROM wiki_pages p WHERE ${wikiVisible} AND ${wikiSiteScope} ORDER BY p.title ASC, p.id ASC LIMIT ${PAGE_SIZE}`,
  wikiCount: `SELECT count(*)::int AS total FROM wiki_pages p WHERE ${wikiVisible} AND ${wikiSiteScope}`,
  wikiRead: `SELECT ${wikiFields}, v.pagetext,
      json_build_object('id', v.id, 'version', v.version, 'pagetext', v.pagetext, 'summary', v.summary, 'approved', v.approved,
                        'length', v.length, 'created', v.created, 'created_by', v.created_by) AS version
    FROM wiki_pages p LEFT JOIN wiki_revisions v ON v.id = p.current_revision_id
    WHERE p.id = $1 AND ${wikiVisible}`,
  blogPage: `SELECT b.id, b.title, b.alias, b.content, b.scope, b.scope_id, b.created, b.created_by, b.modified, b.state, b.access,
      b.allow_comments, b.publish_up, b.publish_down, b.hits, array_to_string(b.tags, ', ') AS tags,
      CASE WHEN b.scope = 'site' THEN '/blog/' || b.alias ELSE '/' || b.scope || 's/' || b.scope_id || '/blog/' || b.alias END AS url
    FROM blog_entries b
    WHERE b.state = 1 AND b.publish_up <= now() AND (b.publish_down IS NULL OR b.publish_down > now()) AND b.access IN (0, 1)
      AND b.scope = 'site' AND b.scope_id = 0
    ORDER BY b.created DESC, b.id ASC LIMIT ${PAGE_SIZE}`,
};

const NOW = `(now() AT TIME ZONE 'UTC')::timestamp(3)`;
const writes = {
  bareInsert: `INSERT INTO bare_pages (title, pagename, scope, scope_id, state, access, params, created, created_by, modified)
    VALUES ($1, $2, 'site', 0, 1, 0, '{}', ${NOW}, $3, ${NOW}) RETURNING id, title, pagename`,
  // One statement, as src/wiki/area.ts sends it: ids, the page (nothing if its name is taken), its
  // first revision, its outbox event, and the answer: the page as GET /wiki/{id} reads it, with that revision.
  pageRevisionEvent: `WITH ids AS (SELECT nextval('wiki_pages_id_seq'::regclass)::int AS page_id, nextval('wiki_revisions_id_seq'::regclass)::int AS revision_id),
    created AS (INSERT INTO wiki_pages (id, title, pagename, scope, scope_id, state, access, params, created, created_by, modified, current_revision_id, search_text, revision_count)
      SELECT page_id, $1, $2, 'site', 0, 1, 0, '{}', ${NOW}, $3, ${NOW}, revision_id, lower($4), 1 FROM ids
      ON CONFLICT (scope, scope_id, pagename) DO NOTHING
      RETURNING *),
    revision AS (INSERT INTO wiki_revisions (id, page_id, version, pagetext, summary, length, created, created_by)
      SELECT ids.revision_id, created.id, 1, $4, '', length($4), ${NOW}, $3 FROM ids, created RETURNING *),
    event AS (INSERT INTO outbox (type, area, record_id, actor_id, anonymous, scope, scope_id, visibility, published, audience, changed, payload)
      SELECT 'wiki.pageCreated', 'wiki', id, $3, false, scope, scope_id, CASE WHEN access IN (1) THEN 'registered' WHEN access IN (4) THEN 'private' ELSE 'public' END,
             state = 1, 'readers', $5::text[], jsonb_build_object('id', id, 'title', title, 'pagename', pagename) FROM created)
    SELECT ${wikiFields}, v.pagetext,
      json_build_object('id', v.id, 'version', v.version, 'pagetext', v.pagetext, 'summary', v.summary, 'approved', v.approved,
                        'length', v.length, 'created', v.created, 'created_by', v.created_by) AS version
    FROM created p LEFT JOIN revision v ON v.id = p.current_revision_id`,
};

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });

let captured: Record<string, { text: string; values: unknown[] }[]> | undefined;
/** The captured statements, read once the runner has written them (after this server started). */
function capturedStatements(): Record<string, { text: string; values: unknown[] }[]> {
  const file = process.env.BENCH_CAPTURED;
  if (!captured && file && fs.existsSync(file)) captured = JSON.parse(fs.readFileSync(file, "utf8"));
  return captured ?? {};
}

/** A POST body as JSON (the write cases send `{"title", "pagetext"}`). */
async function readJson(req: http.IncomingMessage): Promise<{ title?: string; pagetext?: string }> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

async function createLikeHubgraph(title: string, pagetext: string, author: number) {
  const pagename = title.replace(/[^A-Za-z0-9]/g, "");
  const changed = ["title", "pagename", "scope", "scopeId", "state", "access", "params", "created", "createdById", "modified", "currentRevisionId", "revisionCount"];
  const [page] = (await pool.query(writes.pageRevisionEvent, [title, pagename, author, pagetext, changed])).rows;
  if (!page) throw new Error(`name ${pagename} taken`);
  return page;
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function answer(url: URL, req: http.IncomingMessage): Promise<[number, unknown]> {
  if (req.method === "POST") {
    const body = await readJson(req);
    if (!body.title || !body.pagetext) return [400, { message: "title and pagetext are required" }];
    if (url.pathname === "/wiki/insert") return [201, (await pool.query(writes.bareInsert, [body.title, body.title.replace(/[^A-Za-z0-9]/g, ""), 1])).rows[0]];
    if (url.pathname === "/wiki/create-sql") return [201, await createLikeHubgraph(body.title, body.pagetext, 1)];
    return [404, { message: "not found" }];
  }
  switch (url.pathname) {
    case "/ready":
      await pool.query("SELECT 1");
      return [200, { status: "ready" }];
    case "/wiki/page":
      return [200, { pages: (await pool.query(queries.wikiPage)).rows }];
    case "/wiki/page-total": {
      const [page, count] = await Promise.all([pool.query(queries.wikiPage), pool.query(queries.wikiCount)]);
      return [200, { pages: page.rows, total: count.rows[0].total }];
    }
    case "/wiki/read": {
      const id = Number(url.searchParams.get("id"));
      if (!Number.isInteger(id) || id < 1 || id > 2 ** 31 - 1) return [400, { message: "id must be a positive integer" }];
      const row = (await pool.query(queries.wikiRead, [id])).rows[0];
      return row ? [200, row] : [404, { message: `Wiki page ${id} not found.` }];
    }
    case "/blog/page":
      return [200, { posts: (await pool.query(queries.blogPage)).rows }];
    default:
      if (url.pathname.startsWith("/captured/")) {
        const statements = capturedStatements()[url.pathname.slice("/captured/".length)];
        if (!statements?.length) return [404, { message: `no statements captured for ${url.pathname}` }];
        const run = (statement: { text: string; values: unknown[] }) =>
          pool.query({ name: `c${crypto.createHash("sha1").update(statement.text).digest("hex").slice(0, 20)}`, text: statement.text, values: statement.values });
        const [first, ...rest] = statements;
        const answers = [await run(first!), ...(await Promise.all(rest.map(run)))];
        return [200, { results: answers.map((answer) => answer.rows) }];
      }
      return [404, { message: "not found" }];
  }
}

const server = http.createServer((req, res) => {
  answer(new URL(req.url ?? "/", "http://bare"), req).then(
    ([status, body]) => send(res, status, body),
    (error: Error) => send(res, 500, { message: error.message }),
  );
});
server.listen(Number(process.env.PORT), "127.0.0.1");

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void pool.end().finally(() => process.exit(0));
  });
}

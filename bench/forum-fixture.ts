import type { SqlRunner } from "../src/db/migrate.js";
/** What the forum and feed cases ask about (bench/cases.ts): found in the seeded rows, null when none were seeded. */
export interface ForumFixture {
  /** A category whose threads the thread-list case lists. */
  category: number;
  /** A published public thread of that category with at least 25 published public replies: read, and replied to by 20 writers. */
  busyThread: number;
  /** 20 published public open threads of the same category: the spread replies. */
  spreadThreads: number[];
}

export async function forumFixture(db: SqlRunner): Promise<ForumFixture | null> {
  const [busy] = await db.query(
    `SELECT s.id, s.category_id FROM forum_posts s
      WHERE s.starter = 1 AND s.state = 1 AND s.access = 1 AND s.closed = 0 AND s.id <= 10000
        AND (SELECT count(*) FROM forum_posts r WHERE r.thread_id = s.id AND r.starter = 0 AND r.state = 1 AND r.own_state = 1) >= 25
      ORDER BY s.id LIMIT 1`,
  );
  if (!busy) return null;
  const spread = await db.query(
    `SELECT id FROM forum_posts WHERE starter = 1 AND state = 1 AND access = 1 AND closed = 0 AND category_id = $1 AND id <> $2 ORDER BY id LIMIT 20`,
    [busy.category_id, busy.id],
  );
  return { category: Number(busy.category_id), busyThread: Number(busy.id), spreadThreads: spread.map((row) => Number(row.id)) };
}

import { Prisma } from "../src/generated/prisma/client.js";
import type { SqlClient } from "../src/db/sql.js";

/**
 * Waits until every event in the outbox is readable (`readCommittedEvents`): on a shared PostgreSQL server,
 * an open transaction in any database (another test file's) holds the cluster's snapshot xmin back for a
 * moment (docs/events.md, "Reading without skipping"), and a reader waits for it, as the dispatcher does.
 */
export async function allEventsReadable(sql: SqlClient, timeoutMs = 10_000): Promise<void> {
  for (const started = Date.now(); ; ) {
    const [row] = await sql.query<{ ready: boolean }>(
      Prisma.sql`SELECT COALESCE(max(xid) < pg_snapshot_xmin(pg_current_snapshot())::text::bigint, true) AS ready FROM outbox`,
    );
    if (row!.ready) return;
    if (Date.now() - started > timeoutMs) throw new Error(`an outbox event stayed unreadable for ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
